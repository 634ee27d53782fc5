"""Recognise common binary formats by their first bytes, to name them in error messages."""

from __future__ import annotations

_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "a PNG image"),
    (b"\xff\xd8\xff", 0, "a JPEG image"),
    (b"GIF87a", 0, "a GIF image"),
    (b"GIF89a", 0, "a GIF image"),
    (b"WEBP", 8, "a WebP image"),
    (b"OggS", 0, "Ogg audio"),
    (b"ID3", 0, "MP3 audio"),
    (b"fLaC", 0, "FLAC audio"),
    (b"WAVE", 8, "WAV audio"),
    (b"ftyp", 4, "an MP4/M4A/MOV media file"),
    (b"\x1aE\xdf\xa3", 0, "a WebM/Matroska media file"),
    (b"\xd0\xcf\x11\xe0", 0, "an old Microsoft Office file (.doc/.xls/.ppt)"),
    (b"SQLite format 3\x00", 0, "an SQLite database"),
    (b"\x7fELF", 0, "a program (ELF executable)"),
    (b"MZ", 0, "a Windows program"),
    (b"\x1f\x8b", 0, "a gzip archive"),
    (b"7z\xbc\xaf'\x1c", 0, "a 7-Zip archive"),
    (b"Rar!", 0, "a RAR archive"),
)


def describe_binary(head: bytes) -> str | None:
    """A human name for a known binary format, or None."""
    for magic, offset, label in _SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            return label
    if head[:2] == b"\xff\xfb" or head[:2] == b"\xff\xf3":
        return "MP3 audio"
    return None
