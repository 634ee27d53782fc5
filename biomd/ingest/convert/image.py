"""Photos: EXIF date, place and camera, plus a description from the vision model if one is
configured. Without one the photo is still kept, with its EXIF facts and a note."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from biomd.errors import ConversionError, CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.context import ConvertContext

_MAX_SIDE = 1568  # what vision models look at anyway; smaller is cheaper
_MAX_PIXELS = 200_000_000


def image_kind(head: bytes) -> str | None:
    """The MIME type of a photo format we read, from its first bytes."""
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"heim"):
        return "image/heic"
    return None


@dataclass(frozen=True)
class Exif:
    taken: datetime | None = None
    latitude: float | None = None
    longitude: float | None = None
    camera: str | None = None

    def facts(self) -> str:
        parts = []
        if self.taken:
            parts.append(f"taken {self.taken:%Y-%m-%d %H:%M}")
        if self.latitude is not None and self.longitude is not None:
            parts.append(f"GPS {self.latitude:.5f}, {self.longitude:.5f}")
        if self.camera:
            parts.append(f"camera {self.camera}")
        return "; ".join(parts)


def _ratio(value: Any) -> float:
    return float(value[0]) / float(value[1]) if isinstance(value, tuple) else float(value)


def _degrees(dms: Any, ref: str) -> float:
    d, m, s = (_ratio(x) for x in dms)
    value = d + m / 60 + s / 3600
    return -value if ref in ("S", "W") else value


def read_exif(image: Any) -> Exif:
    """Date taken, GPS position and camera, where the file has them and they make sense."""
    try:
        exif = image.getexif()
        sub = exif.get_ifd(0x8769)
        gps = exif.get_ifd(0x8825)
    except Exception:  # broken EXIF never stops a photo
        return Exif()
    taken = None
    raw = sub.get(0x9003) or exif.get(0x0132)
    if isinstance(raw, str):
        try:
            taken = datetime.strptime(raw.strip()[:19], "%Y:%m:%d %H:%M:%S")
        except ValueError:
            taken = None
    lat = lon = None
    try:
        if gps.get(2) and gps.get(4):
            lat = _degrees(gps[2], str(gps.get(1, "N")))
            lon = _degrees(gps[4], str(gps.get(3, "E")))
            if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                lat = lon = None
    except (TypeError, ValueError, ZeroDivisionError, IndexError):
        lat = lon = None
    make, model = exif.get(0x010F), exif.get(0x0110)
    camera = " ".join(str(x).strip() for x in (make, model) if x).strip() or None
    return Exif(taken, lat, lon, camera)


def _open(data: bytes, name: str) -> Any:
    from PIL import Image, UnidentifiedImageError

    try:
        from pillow_heif import register_heif_opener

        register_heif_opener()
    except ImportError:  # pragma: no cover - HEIC then fails as unreadable
        pass
    Image.MAX_IMAGE_PIXELS = None  # checked below, before anything is decoded
    try:
        image = Image.open(io.BytesIO(data))
        if image.width * image.height > _MAX_PIXELS:
            raise CorruptSource(
                f"{name}: the image is {image.width:,}×{image.height:,} pixels, too large to read."
            )
        return image
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise CorruptSource(f"{name}: this image is damaged or not an image ({exc}).") from exc


def _shrunk_jpeg(image: Any, name: str) -> bytes:
    try:
        image.draft("RGB", (_MAX_SIDE, _MAX_SIDE))
        small = image.convert("RGB")
        small.thumbnail((_MAX_SIDE, _MAX_SIDE))
        out = io.BytesIO()
        small.save(out, format="JPEG", quality=85)
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptSource(f"{name}: the image data is damaged ({exc}).") from exc
    return out.getvalue()


def describe_image(data: bytes, name: str, ctx: ConvertContext) -> tuple[Exif, str]:
    """(EXIF facts, description or the reason there is none)."""
    image = _open(data, name)
    exif = read_exif(image)
    if ctx.describer is None:
        return exif, (
            "Not described: no vision model is configured (set BIOMD_VISION_MODEL to have "
            "photos described)."
        )
    jpeg = _shrunk_jpeg(image, name)
    try:
        return exif, ctx.describer.describe(jpeg, "image/jpeg", exif.facts())
    except ConversionError as exc:
        return exif, f"Not described: {exc.user_message}"


def photo_text(name: str, exif: Exif, description: str) -> str:
    lines = [f"Photo: {name}"]
    if exif.taken:
        lines.append(f"[{exif.taken:%Y-%m-%d %H:%M}] Taken (EXIF date)")
    if exif.latitude is not None and exif.longitude is not None:
        lines.append(f"Place: GPS {exif.latitude:.5f}, {exif.longitude:.5f} (EXIF)")
    if exif.camera:
        lines.append(f"Camera: {exif.camera}")
    lines.append(f"Description: {description}")
    return "\n".join(lines) + "\n"


class ImageConverter:
    kind = "image"
    chat = False
    mime = "image/*"

    def accepts(self, probe: Probe) -> bool:
        return image_kind(probe.head) is not None

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        data = probe.path.read_bytes()
        exif, description = describe_image(data, probe.name, ctx)
        yield photo_text(probe.name, exif, description)
