"""A count with its noun, singular or plural: "1 chunk", "2 chunks", "1,204 sources". Pure."""

from __future__ import annotations


def counted(n: int, noun: str, nouns: str = "") -> str:
    """`n` and `noun` ("1 chunk"), or its plural (`nouns`, else `noun` + "s") when n != 1;
    thousands are grouped ("1,204 chunks")."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"
