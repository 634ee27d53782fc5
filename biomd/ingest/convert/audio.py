"""Voice notes, audio files and the sound of videos, transcribed locally."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from biomd.errors import UnsupportedFormat
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.context import ConvertContext

_VIDEO_BRANDS = (b"qt  ", b"isom", b"mp41", b"mp42", b"avc1", b"iso2", b"iso4", b"iso5", b"3gp")


def audio_kind(head: bytes) -> str | None:
    """'audio' or 'video' for a media container we can take sound from, by its first bytes."""
    if head.startswith(b"OggS") or head.startswith(b"ID3") or head.startswith(b"fLaC"):
        return "audio"
    if head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2", b"\xff\xf1", b"\xff\xf9"):
        return "audio"  # MPEG audio frame or ADTS AAC
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio"
    if head[:4] == b"\x1aE\xdf\xa3":
        return "video" if b"webm" not in head[:64] else "audio"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"M4A ", b"M4B ", b"M4P "):
            return "audio"
        if brand.startswith(_VIDEO_BRANDS) or brand in _VIDEO_BRANDS:
            return "video"
    return None


def clock(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


def transcribe_lines(path: Path, name: str, ctx: ConvertContext) -> Iterator[str]:
    """`[m:ss] text` per segment of speech."""
    if ctx.transcriber is None:
        raise UnsupportedFormat(f"{name}: audio needs the speech model, which is not available.")
    for seg in ctx.transcriber.transcribe(path, ctx.hints(), name):
        yield f"[{clock(seg.start)}] {seg.text}\n"


class AudioConverter:
    kind = "audio"
    chat = False
    mime = "audio/*"

    def accepts(self, probe: Probe) -> bool:
        return audio_kind(probe.head) is not None

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        what = "Video (its sound)" if audio_kind(probe.head) == "video" else "Audio"
        yield f"{what}: {probe.name}, transcribed\n\n"
        spoken = False
        for line in transcribe_lines(probe.path, probe.name, ctx):
            spoken = True
            yield line
        if not spoken:
            yield "(no speech recognised)\n"
