"""Photos described by a vision-capable model behind any OpenAI-compatible endpoint."""

from __future__ import annotations

import base64
from typing import Any

from core.errors import ConversionError

PROMPT = """Describe this photo for someone's private biography, in plain prose, under 150 words.
Say, where you can tell:
- the people visible (how many, apparent age, what they are doing; never guess names unless
  a name is written in the image);
- the place (indoors or out, the kind of place, any landmark);
- any text in the image, quoted exactly;
- the apparent occasion or activity.
Say what you cannot tell rather than guessing."""


class VisionDescriber:
    """Sends the image as a data URL in a chat completion."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 120.0) -> None:
        from openai import OpenAI

        self.model = model
        self._client: Any = OpenAI(
            base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=3
        )

    def describe(self, image: bytes, mime: str, facts: str) -> str:
        from openai import OpenAIError

        url = f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
        text = PROMPT + (f"\n\nKnown from the file: {facts}" if facts else "")
        try:
            reply = self._client.chat.completions.create(
                model=self.model,
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": text},
                            {"type": "image_url", "image_url": {"url": url}},
                        ],
                    }
                ],
            )
        except OpenAIError as exc:
            raise ConversionError(f"the vision model could not describe it ({exc}).") from exc
        content = reply.choices[0].message.content if reply.choices else None
        if not content:
            raise ConversionError("the vision model returned no description.")
        return str(content).strip()
