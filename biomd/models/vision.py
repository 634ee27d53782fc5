"""Photos described by a vision-capable model behind the configured OpenAI-compatible
endpoint, metered like every other model call."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from biomd.endpoints import Endpoint
from biomd.errors import ConversionError, LLMError, LLMNotConfigured, SpendLimitReached
from biomd.models import endpoint
from biomd.models.ledger import Ledger

PROMPT = """Describe this photo for someone's private biography, in plain prose, under 150 words.
Say, where you can tell:
- the people visible (how many, apparent age, what they are doing; never guess names unless
  a name is written in the image);
- the place (indoors or out, the kind of place, any landmark);
- any text in the image, quoted exactly;
- the apparent occasion or activity.
Say what you cannot tell rather than guessing."""


class VisionDescriber:
    """Sends the image as a data URL in a chat completion to the endpoint's model
    (Settings.vision_endpoint()).

    Conversion runs in worker threads, so `describe` hands the call to the event loop the
    describer was made on, where the ledger lives, and waits for it."""

    def __init__(self, ep: Endpoint, ledger: Ledger) -> None:
        self.endpoint = ep
        self.ledger = ledger
        self.model = ep.model
        self._loop = asyncio.get_running_loop()
        self._client = endpoint.client(ep)

    def describe(self, image: bytes, mime: str, facts: str) -> str:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            raise RuntimeError("describe() waits for the event loop; call it from a worker thread")
        future = asyncio.run_coroutine_threadsafe(
            self.describe_async(image, mime, facts), self._loop
        )
        return future.result()

    async def describe_async(self, image: bytes, mime: str, facts: str) -> str:
        try:
            endpoint.require_key(self.endpoint)
            await self.ledger.check_limit()
        except LLMNotConfigured as exc:
            raise ConversionError(exc.user_message) from exc
        except SpendLimitReached as exc:
            raise ConversionError(
                "today's LLM spend has reached the daily limit (BIOMD_DAILY_SPEND_LIMIT_USD)."
            ) from exc
        url = f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
        text = PROMPT + (f"\n\nKnown from the file: {facts}" if facts else "")
        message = {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        }
        try:
            async with endpoint.plain_errors(self.endpoint, "BIOMD_VISION_MODEL"):
                reply = await self._client.chat.completions.create(
                    model=self.model,
                    messages=[message],  # type: ignore[list-item]
                    extra_body=endpoint.extra_body(self.endpoint) or None,
                )
            endpoint.check_json(reply, self.endpoint)
        except LLMError as exc:
            raise ConversionError(
                f"the vision model could not describe it ({exc.user_message})"
            ) from exc
        await self.ledger.record(
            self.model, "vision", endpoint.usage_of(reply.usage, self.endpoint)
        )
        content = reply.choices[0].message.content if reply.choices else None
        if not content:
            raise ConversionError("the vision model returned no description.")
        return str(content).strip()


class CodexDescriber:
    """Photos described through `codex exec` with the image attached, when the backend is
    Codex and no vision model is set; metered like every Codex run (tokens, $0)."""

    def __init__(self, codex: Any) -> None:
        self.codex = codex
        self._loop = asyncio.get_running_loop()

    def describe(self, image: bytes, mime: str, facts: str) -> str:
        call = self.describe_async(image, mime, facts)
        return asyncio.run_coroutine_threadsafe(call, self._loop).result()

    async def describe_async(self, image: bytes, mime: str, facts: str) -> str:
        import tempfile
        from pathlib import Path

        suffix = {"image/png": ".png", "image/webp": ".webp", "image/gif": ".gif"}.get(mime, ".jpg")
        text = PROMPT + (f"\n\nKnown from the file: {facts}" if facts else "")
        with tempfile.TemporaryDirectory(prefix="biomd-photo-") as tmp:
            path = Path(tmp) / f"photo{suffix}"
            await asyncio.to_thread(path.write_bytes, image)
            try:
                run = await self.codex.run(text, "vision", images=[path])
            except SpendLimitReached as exc:
                raise ConversionError(exc.user_message) from exc
        if run.failure or not run.text.strip():
            raise ConversionError(f"Codex could not describe it ({run.failure or 'no answer'}).")
        return str(run.text).strip()


Describer = VisionDescriber | CodexDescriber
"""What describes a photo: a vision model behind the endpoint, or Codex."""
