"""What leaving a chat's filler out of the reader's requests saves, and that no fact is lost
(issue 36; the rule is biomd/biographer/reading/filler.py):

- saved: characters (and tokens, at 4 characters a token) sent against the original, on
  generated exports in seven languages, on the tests' fixture exports, and on the sample
  life's chat; with a marker line per left-out run instead of nothing, for comparison;
- kept: on LoCoMo, every dialogue turn that a question cites as evidence must be sent
  (each conversation filtered whole, the harshest case for the repeats rule, and session
  by session as smaller parts).

    .venv/bin/python -m bench.filler --data ../shared/eval/locomo-dev.json

The generated chats: conversations of 4 to 40 lines between the owner and one person,
mostly taking turns; 40% of lines are short reactions and logistics, the middle of the 30-50%
real chats hold (laughter 10%, emoji 7%, one-word acks 9%, stock logistics 9%, media
placeholders and stickers 5%), 20% short content (2-5 words), 40% content of 6-20 words."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import session_lines
from biomd.biographer.reading import filler
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.whatsapp import transcript
from tests.support import chat_fixtures
from tests.support.whatsapp_locales import LOCALES

SAMPLE_CHAT = Path(__file__).parent.parent / "biomd" / "sample" / "WhatsApp Chat with Mum.txt"
MARKER = "…"


@dataclass(frozen=True)
class Language:
    words: str  # content vocabulary
    laughter: tuple[str, ...]
    acks: tuple[str, ...]
    logistics: tuple[str, ...]
    joiner: str = " "  # "" for scripts written without spaces


LANGUAGES = {
    "en": Language(
        "work flat rent Lisbon mum dad sister doctor appointment new job interview moved "
        "studio pottery class wedding Porto train late money tired holiday booked flights "
        "birthday cake hospital exam passed failed boss quit salary garden dog vet school",
        ("haha", "hahaha", "lol", "lmao", "hahahaha 😂"),
        ("ok", "yes", "no", "sure", "okay", "yep", "k", "nice", "cool", "thx"),
        (
            "on my way",
            "where are you?",
            "here",
            "5 min",
            "see you at 7",
            "good night",
            "love you",
            "call me",
            "running late",
            "home now",
        ),
    ),
    "es": Language(
        "trabajo piso alquiler Madrid mamá papá hermana médico cita nuevo entrevista mudanza "
        "boda tren tarde dinero cansada vacaciones vuelos cumpleaños tarta hospital examen "
        "aprobé jefe sueldo jardín perro colegio universidad",
        ("jaja", "jajaja", "jajajaja", "JAJAJA 😂", "xD"),
        ("vale", "sí", "no", "ok", "claro", "va", "bueno", "genial"),
        (
            "ya voy",
            "dónde estás?",
            "llegué",
            "5 min",
            "a las 7",
            "buenas noches",
            "te quiero",
            "llámame",
            "voy tarde",
            "en casa",
        ),
    ),
    "pt": Language(
        "trabalho apartamento renda Lisboa mãe pai irmã médico consulta emprego entrevista "
        "casamento comboio atrasado dinheiro cansada férias voos aniversário bolo hospital "
        "exame chefe salário jardim cão escola faculdade",
        ("kkkk", "kkkkkkk", "rsrs", "hahaha", "kkk 😂"),
        ("sim", "não", "ok", "blz", "tá", "claro", "beleza", "show"),
        (
            "tô indo",
            "cadê você?",
            "cheguei",
            "5 min",
            "às 7",
            "boa noite",
            "te amo",
            "me liga",
            "atrasada",
            "em casa",
        ),
    ),
    "de": Language(
        "Arbeit Wohnung Miete Berlin Mama Papa Schwester Arzt Termin neue Stelle Umzug "
        "Hochzeit Zug Verspätung Geld müde Urlaub Flüge Geburtstag Kuchen Krankenhaus "
        "Prüfung bestanden Chef Gehalt Garten Hund Schule",
        ("haha", "hahaha", "lol", "😂😂"),
        ("ok", "ja", "nein", "klar", "gut", "jo", "passt", "super"),
        (
            "bin unterwegs",
            "wo bist du?",
            "da",
            "5 min",
            "um 7",
            "gute Nacht",
            "hab dich lieb",
            "ruf an",
            "verspäte mich",
            "zuhause",
        ),
    ),
    "ru": Language(
        "работа квартира аренда Москва мама папа сестра врач запись новая собеседование "
        "переезд свадьба поезд опоздал деньги устала отпуск билеты день рождения торт "
        "больница экзамен сдала начальник зарплата дача собака школа",
        ("хаха", "ахахах", "ржу", "хахаха 😂", "))))"),
        ("ок", "да", "нет", "ага", "угу", "норм", "ладно", "класс"),
        (
            "еду",
            "ты где?",
            "на месте",
            "5 мин",
            "в 7",
            "спокойной ночи",
            "люблю",
            "позвони",
            "опаздываю",
            "дома",
        ),
    ),
    "ko": Language(
        "회사 이사 월세 서울 엄마 아빠 언니 병원 예약 새 직장 면접 결혼식 기차 늦었어 돈 "
        "피곤해 휴가 비행기 생일 케이크 시험 합격 상사 월급 강아지 학교",
        ("ㅋㅋㅋ", "ㅋㅋㅋㅋㅋ", "ㅎㅎ", "ㅋㅋ 😂"),
        ("네", "응", "ㅇㅇ", "ㅇㅋ", "아니", "좋아", "그래"),
        (
            "가는 중",
            "어디야?",
            "도착",
            "5분",
            "7시에",
            "잘자",
            "사랑해",
            "전화해",
            "늦어",
            "집이야",
        ),
    ),
    "zh": Language(
        "工作 搬家 房租 上海 妈妈 爸爸 姐姐 医生 预约 新工作 面试 婚礼 火车 晚点 钱 累 假期 "
        "机票 生日 蛋糕 医院 考试 通过 老板 工资 花园 狗 学校",
        ("哈哈哈", "哈哈", "哈哈哈哈 😂", "233333"),
        ("好", "好的", "嗯", "嗯嗯", "对", "行", "可以", "收到"),
        ("我到了", "你在哪?", "马上", "5分钟", "7点", "晚安", "爱你", "打给我", "迟到了", "在家"),
        joiner="",
    ),
}
EMOJI = ("👍", "😂", "❤️", "🙏", "😘", "😂😂😂", "👍👍", "😍", "🥲", "🎉")
MEDIA = (
    "[image omitted]",
    "[sticker omitted]",
    "[video omitted]",
    "[audio omitted]",
    "[media omitted]",
    "[sticker 😂]",
    "[attachment: 00000042-PHOTO-2023-05-01-10-00-00.jpg]",
)
SHAPE = (  # kind of line, share of lines
    ("laughter", 0.10),
    ("emoji", 0.07),
    ("ack", 0.09),
    ("logistics", 0.09),
    ("media", 0.05),
    ("short", 0.20),
    ("content", 0.40),
)
FILLER = {"laughter", "emoji", "ack", "logistics", "media"}


def export(language: str, lines: int, seed: int = 1) -> Iterator[tuple[str, str]]:
    """(kind, line) of a generated 1:1 chat in one language, in the normalised form."""
    lang = LANGUAGES[language]
    rng = np.random.default_rng(seed)
    vocab = lang.words.split()
    kinds = [k for k, _ in SHAPE]
    shares = np.array([s for _, s in SHAPE])
    when = datetime(2021, 1, 1, 8, 0)
    owner = True
    made = 0
    while made < lines:
        when += timedelta(hours=float(rng.exponential(20)))
        for _ in range(int(rng.integers(4, 41))):
            kind = kinds[int(rng.choice(len(kinds), p=shares / shares.sum()))]
            if kind == "laughter":
                body = str(rng.choice(lang.laughter))
            elif kind == "emoji":
                body = str(rng.choice(EMOJI))
            elif kind == "ack":
                body = str(rng.choice(lang.acks)) + str(rng.choice(["", "", "!", " 👍"]))
            elif kind == "logistics":
                body = str(rng.choice(lang.logistics))
            elif kind == "media":
                body = str(rng.choice(MEDIA))
            else:
                n = int(rng.integers(2, 6)) if kind == "short" else int(rng.integers(6, 21))
                body = lang.joiner.join(str(w) for w in rng.choice(vocab, n))
                body += str(rng.choice(["", ".", "!", "?"]))
            who = "Ana (owner)" if owner else "Maya"
            yield kind, f"[{when:%Y-%m-%d %H:%M}] {who}: {body}"
            when += timedelta(minutes=float(rng.exponential(3)))
            owner = owner if rng.random() < 0.3 else not owner
            made += 1


def with_marker(text: str) -> str:
    """The text sent with a marker line where each run of lines was left out."""
    lines = filler.parse(text)
    if not filler.is_chat(lines):
        return text
    out: list[str] = []
    for line, keep in zip(lines, filler.kept(lines), strict=True):
        if keep:
            out.append(line.text)
        elif not out or out[-1] != MARKER:
            out.append(MARKER)
    return "\n".join(out)


def parts(text: str, size: int) -> list[str]:
    """The text in parts of about `size` characters, at line breaks."""
    out, at = [], 0
    while at < len(text):
        end = text.rfind("\n", at, at + size) + 1 if at + size < len(text) else len(text)
        end = end if end > at else min(len(text), at + size)
        out.append(text[at:end])
        at = end
    return out


def saved_row(name: str, texts: list[str]) -> str:
    original = sum(len(t) for t in texts)
    sent = sum(filler.sent_chars(t) for t in texts)
    marked = sum(len(with_marker(t)) for t in texts)
    lines = sum(len(t.split("\n")) for t in texts)
    kept = sum(len(filler.sent(t).split("\n")) for t in texts)
    saved, with_marks = 100 * (1 - sent / original), 100 * (1 - marked / original)
    return (
        f"| {name} | {lines:,} | {100 * (1 - kept / lines):.0f}% | {original // 4:,} | "
        f"{sent // 4:,} | {saved:.0f}% | {with_marks:.0f}% |"
    )


def generated(size: int) -> tuple[list[str], list[str]]:
    """Rows for each generated language, and the check of what its labels say survived."""
    rows: list[str] = []
    checks: list[str] = []
    for language in LANGUAGES:
        labelled = list(export(language, 3_000, seed=len(rows) + 1))
        text = "\n".join(line for _, line in labelled) + "\n"
        pieces = parts(text, size)
        rows.append(saved_row(f"generated, {language}", pieces))
        kept_lines = set()
        for piece in pieces:
            kept_lines.update(filler.sent(piece).split("\n"))
        by_kind: dict[str, list[bool]] = {}
        for kind, line in labelled:
            by_kind.setdefault(kind, []).append(line in kept_lines)
        checks.append(
            f"| {language} | "
            + " | ".join(
                f"{100 * sum(by_kind[k]) / len(by_kind[k]):.0f}%" for k, _ in SHAPE if k in by_kind
            )
            + " |"
        )
    return rows, checks


def fixtures() -> list[str]:
    """The tests' normalised chat exports, and the sample life's chat."""
    texts = [
        "\n".join(lines) + "\n"
        for lines in (
            chat_fixtures.WHATSAPP_IOS_LINES,
            chat_fixtures.WHATSAPP_ANDROID_LINES,
            chat_fixtures.TELEGRAM_SINGLE_LINES,
            chat_fixtures.MESSENGER_LINES,
            chat_fixtures.DISCORD_LINES,
            chat_fixtures.IMESSAGE_TXT_LINES,
            chat_fixtures.IMESSAGE_DB_LINES,
        )
    ]
    texts += ["\n".join(locale.lines) + "\n" for locale in LOCALES.values()]
    return texts


def sample_chat() -> str:
    raw = SAMPLE_CHAT.read_text(encoding="utf-8")
    ctx = ConvertContext(owner_names=("Nina",))
    return "".join(transcript([raw], [raw], "Mum", ctx))


def with_filler(session: list[tuple[str, str]], rng: np.random.Generator) -> list[tuple[str, str]]:
    """A LoCoMo session with filler put between its turns, as a real chat has (about 40% of
    lines: 0 to 2 after each turn, each by either speaker, in English): (dia_id or "", line)."""
    lang = LANGUAGES["en"]
    speakers = sorted({line.split("] ", 1)[1].split(":", 1)[0] for _, line in session})
    out = []
    for dia_id, line in session:
        out.append((dia_id, line))
        stamp = line.split("] ", 1)[0] + "]"
        for _ in range(int(rng.choice(3, p=[0.45, 0.35, 0.2]))):
            pool = (lang.laughter, EMOJI, lang.acks, lang.logistics, MEDIA)[int(rng.integers(5))]
            who = speakers[int(rng.integers(len(speakers)))]
            out.append(("", f"{stamp} {who}: {rng.choice(pool)}"))
    return out


def locomo(path: Path) -> tuple[list[str], list[str]]:
    """Rows: evidence turns sent / cited, lines left out, per conversation, filtered whole
    and session by session; and the evidence turns that were left out."""
    samples: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    rows: list[str] = []
    lost: list[str] = []
    totals = {how: [0, 0, 0, 0] for how in ("whole", "session", "session + filler")}
    for sample in samples:
        conv = sample["conversation"]
        cited = {
            d.strip()
            for qa in sample["qa"]
            for item in qa.get("evidence", [])
            for d in str(item).replace(";", " ").split()
        }
        numbers = sorted(
            int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1
        )
        sessions = [session_lines(conv, n) for n in numbers if conv.get(f"session_{n}")]
        rng = np.random.default_rng(len(rows))
        noisy = [with_filler(s, rng) for s in sessions]
        for how, groups in (
            ("whole", [[turn for s in sessions for turn in s]]),
            ("session", sessions),
            ("session + filler", noisy),
        ):
            kept_ids: set[str] = set()
            every, left = 0, 0
            for group in groups:
                lines = filler.parse("\n".join(line for _, line in group))
                keep = filler.kept(lines) if filler.is_chat(lines) else [True] * len(lines)
                every += len(group)
                left += keep.count(False)
                kept_ids.update(d for (d, _), k in zip(group, keep, strict=True) if k and d)
                lost += [
                    f"{sample['sample_id']} {how} {d}: {line}"
                    for (d, line), k in zip(group, keep, strict=True)
                    if not k and d in cited
                ]
            ids = {d for g in groups for d, _ in g if d}
            evidence = cited & ids
            t = totals[how]
            t[0] += len(evidence & kept_ids)
            t[1] += len(evidence)
            t[2] += left
            t[3] += every
            rows.append(
                f"| {sample['sample_id']} | {how} | {len(evidence & kept_ids)} / {len(evidence)} "
                f"| {left} / {every} ({100 * left / every:.1f}%) |"
            )
    for how, t in totals.items():
        rows.append(
            f"| **all** | {how} | **{t[0]} / {t[1]}** | {t[2]} / {t[3]} "
            f"({100 * t[2] / t[3]:.1f}%) |"
        )
    return rows, lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/eval/locomo-dev.json"))
    parser.add_argument("--part", type=int, default=24_000, help="part size in characters")
    args = parser.parse_args()

    began = time.perf_counter()
    rows, checks = generated(args.part)
    print("## Saved\n")
    print("| text | lines | lines left out | tokens (chars/4) | sent | saved | saved, marker |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row)
    print(saved_row("test fixtures (7 formats, 10 WhatsApp locales)", fixtures()))
    print(saved_row("sample life: WhatsApp Chat with Mum", [sample_chat()]))
    print("\n## Generated lines sent, by kind\n")
    print("| language | " + " | ".join(k for k, _ in SHAPE) + " |")
    print("|---|" + "---:|" * len(SHAPE))
    for check in checks:
        print(check)
    print("\n## LoCoMo: evidence turns sent\n")
    print("| conversation | filtered | evidence turns sent | lines left out |")
    print("|---|---|---:|---:|")
    rows, lost = locomo(args.data)
    rows.sort(key=lambda row: row.startswith("| **all**"))
    for row in rows:
        print(row)
    for line in lost:
        print(f"- LOST {line}")
    print(f"\n{time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
