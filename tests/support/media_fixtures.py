"""Real speech and real photos for tests: speech from espeak-ng, encoded the way phones send
it (OGG/Opus voice notes, MP4 video), and JPEGs with EXIF written by Pillow."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

HINTED_SENTENCE = "My friend Saoirse moved to Reykjavik last spring with her partner Tadhg."


def speak(text: str, wav: Path) -> Path:
    """A WAV of espeak-ng saying `text` (installed by .ci/run with apt-get)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    subprocess.run(["espeak-ng", "-w", str(wav), text], check=True, capture_output=True)
    return wav


def _pcm(wav: Path) -> tuple[np.ndarray, int]:
    import av

    with av.open(str(wav)) as container:
        stream = container.streams.audio[0]
        rate = stream.rate
        frames = [f.to_ndarray().reshape(-1) for f in container.decode(stream)]
    return np.concatenate(frames).astype(np.int16), rate


def encode(wav: Path, out: Path, container: str, codec: str, rate: int = 48000) -> Path:
    """Re-encode a WAV (e.g. as OGG/Opus, a Telegram or WhatsApp voice note)."""
    import av

    samples, source_rate = _pcm(wav)
    with av.open(str(out), "w", format=container) as dst:
        stream = dst.add_stream(codec, rate=rate)
        resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=rate)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.rate = source_rate
        for chunk in resampler.resample(frame) + resampler.resample(None):
            for packet in stream.encode(chunk):
                dst.mux(packet)
        for packet in stream.encode(None):
            dst.mux(packet)
    return out


def jpeg_with_exif(
    taken: str | None = "2019:08:17 14:32:05",
    gps: tuple[float, float] | None = (53.2707, -9.0568),
    size: tuple[int, int] = (640, 480),
) -> bytes:
    from PIL import Image

    image = Image.new("RGB", size, (120, 170, 220))
    exif = Image.Exif()
    exif[0x010F] = "Apple"
    exif[0x0110] = "iPhone 12"
    if taken:
        exif.get_ifd(0x8769)[0x9003] = taken
    if gps:
        lat, lon = gps

        def dms(value: float) -> tuple[float, float, float]:
            value = abs(value)
            d = int(value)
            m = int((value - d) * 60)
            return (float(d), float(m), round((value - d - m / 60) * 3600, 4))

        gps_ifd = exif.get_ifd(0x8825)
        gps_ifd[1] = "N" if lat >= 0 else "S"
        gps_ifd[2] = dms(lat)
        gps_ifd[3] = "E" if lon >= 0 else "W"
        gps_ifd[4] = dms(lon)
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif)
    return out.getvalue()
