"""One exception tree. Each error carries a `user_message` that is safe to show.

BiomdError
├── ConfigError            settings that cannot work
├── ConversionError        a source could not be turned into text
│   ├── UnsupportedFormat  not a format biomd reads (yet)
│   ├── CorruptSource      the file is damaged, encrypted or empty
│   └── ArchiveLimit       a zip breaks a safety limit (size, entries, depth, ratio)
├── StoreError             the database is unusable
│   └── DiskFull           a write failed for want of space
├── EmbeddingError         the embedding model cannot be loaded or run
├── SpeechModelError       the speech-to-text model cannot be loaded
├── LLMError               the language model failed (after retries)
│   ├── LLMNotConfigured   no endpoint/key, or the key was rejected
│   └── SpendLimitReached  today's spend reached BIOMD_DAILY_SPEND_LIMIT_USD
├── ProfileEditError       an edit_profile call that cannot apply (shown to the model)
│   ├── NothingToDo        both texts empty: not an edit at all
│   └── EditRefused        an edit biomd will not make (invented citation, pasted source…)
├── PlatformUnavailable    Telegram or Discord cannot be reached just now
├── NotFound               an id that does not exist
├── Busy                   another biomd process holds the ingest lock
├── ConsolidationRefused   a rewrite of bio.md that would lose facts (biographer/consolidate.py)
├── UnknownAudience        a share for an audience with no such name (app/share/audiences.py)
├── UnresolvedFindings     a share with private things not yet accepted (app/share/service.py)
└── NothingToShare         a share of a bio.md with nothing for its audience yet (the same)

Raised and caught inside biomd, never shown as they are (each is turned into one of the above,
or into a message for the model):
- BadArguments (ValueError)    a tool call's arguments do not fit its schema (models/tools.py)
- Unreadable (ValueError)      a model's reply holds no JSON of the shape asked for
                               (biographer/json_reply.py)
- DuplicateSource (Exception)  a source whose bytes are stored already (storage/documents.py)
- UploadTooBig (Exception)     a web upload over its limit (biomd/frontends/web/pages/sources.py)
"""

from __future__ import annotations


class BiomdError(Exception):
    """Base of all biomd errors; `user_message` is what the owner sees."""

    def __init__(self, user_message: str) -> None:
        from biomd.redact import redact

        user_message = redact(user_message)
        super().__init__(user_message)
        self.user_message = user_message


class ConfigError(BiomdError):
    pass


class ConversionError(BiomdError):
    pass


class UnsupportedFormat(ConversionError):
    pass


class CorruptSource(ConversionError):
    pass


class ArchiveLimit(ConversionError):
    pass


class StoreError(BiomdError):
    pass


class DiskFull(StoreError):
    pass


class EmbeddingError(BiomdError):
    pass


class EmbeddingWaits(EmbeddingError):
    """The embedding model's download failed lately, and is not tried again yet (the owner
    was told why when it failed)."""


class SpeechModelError(BiomdError):
    pass


class LLMError(BiomdError):
    pass


class LLMNotConfigured(LLMError):
    pass


class LLMRequestRefused(LLMError):
    """The endpoint answered 400: it will not take this request as it is."""


class ContextExceeded(LLMRequestRefused):
    """The request is longer than the model's context window (the endpoint said so)."""


class SpendLimitReached(LLMError):
    pass


class ProfileEditError(BiomdError):
    """An edit of bio.md that was not made. `reason` is the gist, for the turn's report of
    refused edits: the message's first sentence unless given."""

    def __init__(self, user_message: str, reason: str | None = None) -> None:
        super().__init__(user_message)
        first = self.user_message.split(". ")[0].removeprefix("Refused: ").removeprefix("refused: ")
        self.reason = (reason or first).rstrip(".")[:200]


class NothingToDo(ProfileEditError):
    pass


class EditRefused(ProfileEditError):
    pass


class NotFound(BiomdError):
    pass


class Busy(BiomdError):
    pass


class PlatformUnavailable(BiomdError):
    """The chat platform did not answer (network down, 5xx, rate limit); worth retrying."""
