"""The zip limits as one group: read from the settings once, spent afresh on each upload."""

from __future__ import annotations

from biomd.ingest.convert.context import ArchiveBudget, ConvertContext
from biomd.settings import Settings, ZipLimits


def test_the_zip_limits_are_one_group_read_from_the_settings() -> None:
    assert Settings(_env_file=None).zip == ZipLimits()
    s = Settings(
        _env_file=None, zip_max_total_bytes=10, zip_max_entries=5, zip_max_depth=1, zip_max_ratio=9
    )
    assert s.zip == ZipLimits(total_bytes=10, entries=5, depth=1, ratio=9)


def test_each_archive_gets_the_whole_budget_afresh() -> None:
    limits = ZipLimits(total_bytes=10, entries=5, depth=1, ratio=9)
    ctx = ConvertContext(zip_limits=limits)
    first = ctx.budget()
    first.bytes_left, first.entries_left = 0, 0
    assert ctx.budget() == ArchiveBudget(bytes_left=10, entries_left=5, max_depth=1, max_ratio=9)
    assert ConvertContext().zip_limits == ZipLimits(), "the defaults, without settings"
