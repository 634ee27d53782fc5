"""Synthetic life-like text for the scale benchmarks: chat lines over a Zipf vocabulary."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

COMMON = (
    "time day home work love friend family mum dad today really good think going know "
    "want people night morning week call dinner tired happy sorry thanks later tomorrow "
    "yesterday house school money trip car phone weekend coffee lunch movie birthday "
    "party doctor job dog cat walk sleep rain sun beach city train"
).split()
GLUE = "the a and i to you it of in is that for was on my me so but with we".split()
NAMES = ["Ana", "Bo", "Chidi", "Dee", "Eitan", "Fatima", "Grace", "Hiro"]


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """Common words first, then made-up words, so frequencies fall off like real text."""
    rng = np.random.default_rng(seed)
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    made: set[str] = set()
    while len(made) < size:
        n = int(rng.integers(2, 5))
        made.add("".join(syllables[i] for i in rng.integers(0, len(syllables), n)))
    return GLUE + COMMON + sorted(made)


def word_probabilities(vocab_size: int, exponent: float = 1.07) -> np.ndarray:
    ranks = np.arange(1, vocab_size + 1, dtype=np.float64)
    p = 1.0 / ranks**exponent
    return p / p.sum()


def stock_lines(vocab: list[str], n: int = 300, seed: int = 3) -> list[str]:
    """Short lines people send again and again ("ok see you tomorrow love"), from common words."""
    rng = np.random.default_rng(seed)
    common = vocab[: len(GLUE) + len(COMMON)]
    return [" ".join(rng.choice(common, int(rng.integers(2, 7)))) for _ in range(n)]


def chat_text(chars: int, vocab: list[str], seed: int = 1, repeats: float = 0.0) -> Iterator[str]:
    """About `chars` characters of chat lines, `[YYYY-MM-DD HH:MM] Name: words.`, in pieces.
    A share `repeats` of the lines are near-duplicates: a stock line, sometimes with one
    word changed, as real chats are full of."""
    rng = np.random.default_rng(seed)
    probs = word_probabilities(len(vocab))
    words = np.array(vocab, dtype=object)
    stock = stock_lines(vocab) if repeats else []
    produced, minute = 0, 0
    while produced < chars:
        ids = rng.choice(len(vocab), size=20_000, p=probs)
        lengths = rng.integers(4, 30, size=1500)
        lines, pos = [], 0
        for n in lengths:
            if pos + n > len(ids):
                break
            minute += int(rng.integers(1, 240))
            day, rest = divmod(minute, 1440)
            year, day = 2015 + day // 365, day % 365
            date = f"{year}-{day // 31 % 12 + 1:02d}-{day % 28 + 1:02d}"
            stamp = f"[{date} {rest // 60:02d}:{rest % 60:02d}]"
            name = NAMES[int(rng.integers(0, len(NAMES)))]
            if stock and rng.random() < repeats:
                said = stock[int(rng.integers(0, len(stock)))].split()
                if rng.random() < 0.5:
                    said[int(rng.integers(0, len(said)))] = str(words[ids[pos]])
                lines.append(f"{stamp} {name}: {' '.join(said)}")
            else:
                lines.append(f"{stamp} {name}: {' '.join(words[ids[pos : pos + n]])}.")
            pos += n
        piece = "\n".join(lines) + "\n"
        produced += len(piece)
        yield piece


def structured_vectors(
    rng: np.random.Generator, n: int, dim: int = 384, topics: int = 200
) -> np.ndarray:
    """Unit vectors shaped like sentence embeddings: a shared direction, a power-law spectrum
    and topic clusters (random-pair cosine about 0.3-0.5). Uniformly random vectors would be a
    worst case that real embeddings never are."""
    basis, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    scale = np.arange(1, dim + 1) ** -0.8

    def draw(k: int) -> np.ndarray:
        return (rng.standard_normal((k, dim)) * scale) @ basis.T

    mean = draw(1)[0] * 1.5
    centres = draw(topics) * 1.5
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 100_000):
        k = min(100_000, n - start)
        block = mean + centres[rng.integers(0, topics, k)] + draw(k)
        out[start : start + k] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def paraphrases(rng: np.random.Generator, vectors: np.ndarray, n: int) -> np.ndarray:
    """Queries near stored vectors, as a reworded question would be."""
    picks = vectors[rng.integers(0, len(vectors), n)]
    other = vectors[rng.integers(0, len(vectors), n)] - vectors[:1000].mean(axis=0)
    queries = picks + 0.3 * other
    return (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
