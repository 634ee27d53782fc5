"""Streaming JSON for exports too big to load at once (ijson): objects at a path, and the
scalar fields that come before them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from biomd.errors import CorruptSource


def sniff(head: bytes, *patterns: str) -> bool:
    """True if the start of a JSON file holds every regex pattern (keys in their order)."""
    text = head[:65536].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text.startswith(("{", "[")):
        return False
    return all(re.search(p, text) for p in patterns)


def iter_objects(
    path: Path, name: str, item_paths: set[str]
) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(path, object, scalars seen so far) for each object whose path is in `item_paths`.

    Paths are ijson prefixes such as `messages.item`. `scalars` maps prefixes of the strings
    and numbers read before the object (a chat's name, say) to their values."""
    import ijson
    from ijson.common import ObjectBuilder

    scalars: dict[str, Any] = {}
    builder: ObjectBuilder | None = None
    depth_prefix = ""
    with path.open("rb") as f:
        try:
            for prefix, event, value in ijson.parse(f, use_float=True):
                if builder is not None:
                    builder.event(event, value)
                    if prefix == depth_prefix and event in ("end_map", "end_array"):
                        yield depth_prefix, builder.value, scalars
                        builder = None
                    continue
                if prefix in item_paths and event in ("start_map", "start_array"):
                    builder = ObjectBuilder()
                    builder.event(event, value)
                    depth_prefix = prefix
                elif event in ("string", "number", "boolean"):
                    scalars[prefix] = value
        except ijson.JSONError as exc:
            raise CorruptSource(f"{name}: the JSON is broken or cut short ({exc}).") from exc
