"""Secrets never leave the process in words: every log record, and every error message shown
to the owner, has the configured tokens and keys replaced by a placeholder."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

PLACEHOLDER = "[secret]"
_MIN_LENGTH = 6  # shorter values would redact ordinary words

_lock = threading.Lock()
_secrets: list[str] = []
_installed = False


def register(values: Iterable[str | None]) -> None:
    """Add secrets to hide (API keys, bot tokens, and the parts of a token people quote)."""
    with _lock:
        for value in values:
            if not value or len(value) < _MIN_LENGTH:
                continue
            for piece in {value, *value.split(":")[1:]}:  # a Telegram token's secret half too
                if len(piece) >= _MIN_LENGTH and piece not in _secrets:
                    _secrets.append(piece)
        _secrets.sort(key=len, reverse=True)
    _install()


def redact(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, PLACEHOLDER)
    return text


def _install() -> None:
    """Redact at record creation, so every logger and handler sees clean text."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _secrets:
            message = record.getMessage()
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            clean = redact(message)
            if clean != message or record.args:
                record.msg, record.args = clean, None
            if record.exc_text:
                record.exc_text = redact(record.exc_text)
                record.exc_info = None
        return record

    logging.setLogRecordFactory(factory)
