"""biomd, the personal biographer: one package. The base (settings, endpoints, errors, redact,
fold, plural, plugins) sits at its top; the layers below it, top to bottom: frontends, app,
biographer, then retrieval, ingest and models, then storage."""

from __future__ import annotations

from biomd.plugins import hookimpl

__all__ = ["hookimpl", "version"]


def version() -> str:
    """The installed version of biomd (the checkout's, where it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("biomd")
    except PackageNotFoundError:
        return "0+checkout"
