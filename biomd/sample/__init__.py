"""A fictional life that ships with biomd, so a newcomer sees it work before setting anything
up. Nina Castell and everyone around her are invented."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

PERSON = "Nina Castell"
OWNER_NAMES = "Nina Castell, Nina"
TIMEZONE = "Europe/Lisbon"

ABOUT = (
    "This is a sample life: Nina Castell, a designer who left London for Lisbon, told through "
    "six journal entries, a WhatsApp chat with her mum, two emails and a voice note. She and "
    "everyone in it are invented. Her sources hold patterns, contradictions and gaps for the "
    "biographer to find."
)

TRY = (
    "Try: where did Nina work before Lisbon? · what happened with Tom? · does she still "
    "smoke? · /timeline · /questions · /bio · /source 1"
)


def files() -> list[Path]:
    """The sample's sources, oldest first, so they get the same ids every time."""
    journal = sorted((HERE / "journal").glob("*.md"))
    return [
        *journal,
        HERE / "WhatsApp Chat with Mum.txt",
        HERE / "email-sam-2021.eml",
        HERE / "email-lumen-2024.eml",
        HERE / "voice-note-2024-06-02.ogg",
    ]


def data_dir(own: Path) -> Path:
    """The sample's own data dir, beside (never inside) the owner's."""
    return own.parent / f"{own.name}-sample"
