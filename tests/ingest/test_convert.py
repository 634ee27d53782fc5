"""Conversion: every supported format to text, and a clear error for everything else."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from biomd.errors import ArchiveLimit, CorruptSource, UnsupportedFormat
from biomd.ingest.convert import ConvertContext, Probe, detect
from biomd.ingest.convert.archive import safe_member_name
from biomd.ingest.convert.base import ArchiveReader
from biomd.ingest.convert.context import ArchiveBudget
from biomd.ingest.convert.text import detect_encoding
from tests.support.samples import BEES, MARATHON, docx_bytes, pdf_bytes, zip_bytes


def convert(path: Path, name: str | None = None) -> tuple[str, str]:
    probe = Probe.of(path, name)
    converter = detect(probe)
    assert not isinstance(converter, ArchiveReader)
    return converter.kind, "".join(converter.convert(probe, ConvertContext()))


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("utf-8", "Zoë sang «Ça ira» at the café 😀"),
        ("utf-8-sig", "Zoë at the café"),
        ("utf-16", "Zoë at the café, naïve"),
        ("cp1252", "Zoë wrote “hello” at the café – naïve résumé of the soirée"),
        ("shift_jis", "今日は東京で友達と会いました。とても楽しかったです。" * 3),
    ],
)
def test_plain_text_in_common_encodings_is_detected_and_decoded(
    tmp_path: Path, encoding: str, text: str
) -> None:
    path = write(tmp_path, "note.txt", text.encode(encoding))
    kind, out = convert(path)
    assert kind == "text"
    assert out == text


def test_invalid_utf8_never_crashes_and_keeps_the_good_text(tmp_path: Path) -> None:
    data = ("good line one\n" * 50).encode() + b"\xff\xfe\xc3(broken\n" + b"good line two\n"
    path = write(tmp_path, "mixed.txt", data)
    _, out = convert(path)
    assert "good line one" in out and "good line two" in out


def test_windows_newlines_become_plain_newlines(tmp_path: Path) -> None:
    _, out = convert(write(tmp_path, "crlf.txt", b"one\r\ntwo\r\nthree"))
    assert out == "one\ntwo\nthree"


def test_markdown_json_and_csv_are_read_as_text(tmp_path: Path) -> None:
    assert convert(write(tmp_path, "a.md", b"# Title\n\nbody"))[0] == "markdown"
    kind, out = convert(write(tmp_path, "a.json", b'{"name": "Zo\\u00eb", "age": 31}'))
    assert (kind, out) == ("json", '{"name": "Zo\\u00eb", "age": 31}')
    kind, out = convert(write(tmp_path, "a.csv", b"date,place\n2020-01-01,Lisbon\n"))
    assert kind == "csv" and "Lisbon" in out
    kind, _ = convert(write(tmp_path, "no-extension", b'{"looks": "like json"}'))
    assert kind == "text"


def test_html_keeps_the_words_and_drops_scripts_and_styles(tmp_path: Path) -> None:
    html = (
        b"<!DOCTYPE html><html><head><title>Trip</title><style>p{color:red}</style>"
        b"<script>alert('zzsecret')</script></head><body><p>We hiked to <b>Skogafoss</b>.</p>"
        b"</body></html>"
    )
    kind, out = convert(write(tmp_path, "page.bin", html))
    assert kind == "html"
    assert "Skogafoss" in out and "Trip" in out
    assert "zzsecret" not in out and "color:red" not in out and "<p>" not in out


@pytest.mark.slow
def test_pdf_text_comes_out_page_by_page(tmp_path: Path) -> None:
    kind, out = convert(write(tmp_path, "a.pdf", pdf_bytes("Page one about Oslo.", MARATHON)))
    assert kind == "pdf"
    assert "Oslo" in out and "marathon in Berlin" in out
    assert out.index("Oslo") < out.index("Berlin")


@pytest.mark.slow
def test_docx_keeps_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    kind, out = convert(write(tmp_path, "renamed.bin", docx_bytes("The bees", BEES)))
    assert kind == "docx"
    assert "# The bees" in out and "eleven kilos" in out and "Hives" in out


def test_a_corrupt_pdf_is_a_clear_error_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.pdf", b"%PDF-1.7\n" + b"\x00garbage" * 50)
    with pytest.raises(CorruptSource, match=r"broken\.pdf: this PDF is damaged"):
        convert(path)


def test_an_encrypted_pdf_says_it_needs_its_password(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    plain = write(tmp_path, "plain.pdf", pdf_bytes("secret diary"))
    writer = PdfWriter()
    for page in PdfReader(plain).pages:
        writer.add_page(page)
    writer.encrypt(user_password="hunter2", algorithm="AES-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as f:
        writer.write(f)
    with pytest.raises(CorruptSource, match=r"locked\.pdf: this PDF is password-protected"):
        convert(locked)


def test_a_truncated_docx_is_a_clear_error(tmp_path: Path) -> None:
    data = docx_bytes("Title", "Some text")
    path = write(tmp_path, "cut.docx", data[: len(data) // 2])
    with pytest.raises(CorruptSource, match=r"cut\.docx: .*damaged"):
        convert(path)


def test_binary_data_named_txt_is_refused_as_binary(tmp_path: Path) -> None:
    path = write(tmp_path, "notes.txt", bytes(range(256)) * 40)
    with pytest.raises(UnsupportedFormat, match=r"notes\.txt: this is binary data"):
        convert(path)


def test_known_binary_formats_are_named_in_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, "backup.txt", b"\x1f\x8b\x08\x00" + b"\x00" * 100)
    with pytest.raises(UnsupportedFormat, match=r"backup\.txt: this is a gzip archive"):
        convert(path)


def test_an_empty_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorruptSource, match=r"empty\.txt: the file is empty"):
        convert(write(tmp_path, "empty.txt", b""))


def test_encoding_detection_falls_back_instead_of_failing() -> None:
    assert detect_encoding(b"") == "utf-8"
    assert detect_encoding(b"\xff\xfeh\x00i\x00") == "utf-16"
    assert detect_encoding(bytes(range(128, 256))) != ""


# -- archives -------------------------------------------------------------------------------

BUDGET = ArchiveBudget(bytes_left=10_000_000, entries_left=100, max_depth=2, max_ratio=200)


def members(path: Path, budget: ArchiveBudget = BUDGET) -> dict[str, bytes]:
    probe = Probe.of(path)
    reader = detect(probe)
    assert isinstance(reader, ArchiveReader)
    out = {}
    for m in reader.members(probe, budget):
        with m.open() as f:
            out[m.name] = f.read()
    return out


def test_zip_members_come_out_one_by_one_without_junk(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "x.zip",
        zip_bytes(
            {"a.txt": b"alpha", "dir/b.md": b"beta", "__MACOSX/._a.txt": b"x", ".DS_Store": b""}
        ),
    )
    assert members(path) == {"x.zip/a.txt": b"alpha", "x.zip/dir/b.md": b"beta"}


def test_zip_member_names_cannot_escape_with_dots_or_roots(tmp_path: Path) -> None:
    assert safe_member_name("../../etc/passwd") == "etc/passwd"
    assert safe_member_name("/abs/path.txt") == "abs/path.txt"
    assert safe_member_name("C:\\Users\\x.txt") == "Users/x.txt"
    path = write(tmp_path, "evil.zip", zip_bytes({"../../evil.txt": b"boo"}))
    assert members(path) == {"evil.zip/evil.txt": b"boo"}


def test_a_zip_with_too_many_entries_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "many.zip", zip_bytes({f"{i}.txt": b"x" for i in range(20)}))
    budget = ArchiveBudget(bytes_left=10_000_000, entries_left=10, max_depth=2, max_ratio=200)
    with pytest.raises(ArchiveLimit, match=r"many\.zip: the archive holds 20 files"):
        members(path, budget)


def test_a_zip_bomb_is_refused_by_its_ratio(tmp_path: Path) -> None:
    path = write(tmp_path, "bomb.zip", zip_bytes({"zeros.txt": b"\0" * 5_000_000}))
    with pytest.raises(ArchiveLimit, match=r"bomb\.zip: zeros\.txt expands .* zip bomb"):
        members(path)


def test_a_zip_past_the_total_size_limit_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "big.zip", zip_bytes({"a.txt": b"a" * 600, "b.txt": b"b" * 600}))
    budget = ArchiveBudget(bytes_left=1000, entries_left=10, max_depth=2, max_ratio=200)
    with pytest.raises(ArchiveLimit, match=r"big\.zip: the archive expands to 1,200 bytes"):
        members(path, budget)


def test_a_corrupt_zip_is_a_clear_error(tmp_path: Path) -> None:
    data = zip_bytes({"a.txt": b"hello" * 100})
    path = write(tmp_path, "cut.zip", data[:40])
    with pytest.raises(CorruptSource, match=r"cut\.zip: this ZIP archive is damaged"):
        members(path)


def test_an_encrypted_zip_member_is_a_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path, "locked.zip", zip_bytes({"a.txt": b"x"}))
    raw = bytearray(path.read_bytes())
    raw[6] |= 0x01  # local header: the "encrypted" flag
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 8] |= 0x01
    path.write_bytes(bytes(raw))
    probe = Probe.of(path)
    reader = detect(probe)
    assert isinstance(reader, ArchiveReader)
    listing = reader.members(probe, BUDGET)
    member = next(listing)
    with pytest.raises(
        CorruptSource, match=r"locked\.zip/a\.txt: this archive member is encrypted"
    ):
        member.open()


def test_zip_file_names_do_not_decide_the_format(tmp_path: Path) -> None:
    path = write(tmp_path, "archive.dat", zip_bytes({"a.txt": b"alpha"}))
    assert isinstance(detect(Probe.of(path)), ArchiveReader)
    assert zipfile.is_zipfile(path)


def test_a_legacy_encoded_file_that_opens_in_plain_ascii_is_still_decoded_right(
    tmp_path: Path,
) -> None:
    text = "Plain ASCII notes for a long while.\n" * 3000 + "Then: café, naïve, Zoë.\n"
    _, out = convert(write(tmp_path, "old.txt", text.encode("cp1252")))
    assert out == text
