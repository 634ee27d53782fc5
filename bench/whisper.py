"""Speech recognition on the CPU: real-time factor and word error rate of Whisper models on
sentences spoken by espeak-ng (names included), to choose BIOMD_WHISPER_MODEL.

    .venv/bin/python -m bench.whisper --model tiny.en=PATH [--model base=PATH ...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
import time
import wave
from pathlib import Path

from biomd.ingest.transcribe import WhisperTranscriber

SENTENCES = [
    "My friend Saoirse moved to Reykjavik last spring with her partner Tadhg.",
    "We drove from Galway to Dublin on a rainy Sunday in November.",
    "The pottery course starts at seven in the evening and costs ninety euro.",
    "Grandmother Edith kept her sourdough starter in a blue jar called Brigid.",
    "I ran my first marathon in Berlin in four hours and twelve minutes.",
    "Tomorrow I will call the doctor about my knee and then walk the dog.",
    "Chidi and Fatima are getting married in Lagos next August.",
    "The train to Kyoto was late, so we ate noodles at the station.",
]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def wer(reference: list[str], hypothesis: list[str]) -> float:
    """Word error rate: edit distance over reference length."""
    previous = list(range(len(hypothesis) + 1))
    for i, r in enumerate(reference, 1):
        current = [i]
        for j, h in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1] / max(1, len(reference))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", action="append", default=[], help="name=path (or a model name)")
    args = ap.parse_args()
    models = args.model
    if not models:
        from tests.support.model_files import whisper_dir

        models = [f"tiny.en={whisper_dir()}"]
    work = Path(tempfile.mkdtemp(prefix="biomd-whisper-"))
    clips = []
    for i, sentence in enumerate(SENTENCES):
        wav = work / f"{i}.wav"
        subprocess.run(["espeak-ng", "-w", str(wav), sentence], check=True, capture_output=True)
        with wave.open(str(wav)) as w:
            clips.append((wav, sentence, w.getnframes() / w.getframerate()))
    audio = sum(seconds for _, _, seconds in clips)
    print(f"\n{len(clips)} sentences, {audio:.0f} s of espeak-ng speech, 2 CPU cores, int8\n")
    print("| model | load s | real-time factor | WER | WER with name hints |")
    print("|---|---:|---:|---:|---:|")
    hints = "Saoirse, Reykjavik, Tadhg, Galway, Edith, Brigid, Chidi, Fatima, Lagos, Kyoto"
    for spec in models:
        label, _, path = spec.partition("=")
        started = time.perf_counter()
        transcriber = WhisperTranscriber(path or label)
        transcriber._load()
        load = time.perf_counter() - started
        scores: dict[str, list[float]] = {"": [], hints: []}
        elapsed = 0.0
        for prompt in scores:
            for wav, sentence, _ in clips:
                started = time.perf_counter()
                heard = " ".join(s.text for s in transcriber.transcribe(wav, prompt))
                elapsed += time.perf_counter() - started if not prompt else 0.0
                scores[prompt].append(wer(words(sentence), words(heard)))
        plain = sum(scores[""]) / len(clips)
        hinted = sum(scores[hints]) / len(clips)
        print(f"| {label} | {load:.1f} | {elapsed / audio:.3f} | {plain:.1%} | {hinted:.1%} |")


if __name__ == "__main__":
    main()
