"""Media found inside a chat export (a voice note, a photo), as one bracketed piece of text
for the transcript line where it was sent."""

from __future__ import annotations

from pathlib import Path

from biomd.errors import ConversionError
from biomd.ingest.convert.audio import audio_kind, clock
from biomd.ingest.convert.chat import one_line
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.image import describe_image, image_kind


def media_text(path: Path, name: str, ctx: ConvertContext) -> str | None:
    """`[voice note 0:12: "…"]`, `[photo: …]`, or None for files that are neither."""
    with path.open("rb") as f:
        head = f.read(64)
    try:
        if image_kind(head):
            exif, description = describe_image(path.read_bytes(), name, ctx)
            facts = f" ({exif.facts()})" if exif.facts() else ""
            return f"[photo {name}{facts}: {one_line(description)}]"
        kind = audio_kind(head)
        if kind and ctx.transcriber is not None:
            segments = list(ctx.transcriber.transcribe(path, ctx.hints(), name))
            words = " ".join(s.text for s in segments) or "(no speech recognised)"
            length = f" {clock(segments[-1].end)}" if segments else ""
            label = "voice note" if kind == "audio" else "video"
            return f'[{label} {name}{length}: "{one_line(words)}"]'
    except ConversionError as exc:
        return f"[attachment {name}: {exc.user_message}]"
    return None
