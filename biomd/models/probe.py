"""Short calls that tell whether an endpoint, key and model work, and how the model makes
tool calls, for `biomd setup` and `biomd doctor`. They are the only model calls not written
to `llm_usage`: setup makes them before any data dir exists, and doctor never writes to the
store. Each is a few hundred tokens at most."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


async def try_language_model(url: str, key: str, model: str) -> str | None:
    """One tiny call; None if it worked, else what went wrong, in a sentence."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key=key or "none", timeout=60, max_retries=0)
    try:
        await client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "Reply with the single word OK."}],
            max_tokens=5,
        )
    except openai.AuthenticationError:
        return "the key was rejected."
    except openai.NotFoundError:
        return f"the endpoint does not know the model {model!r} (or the URL is wrong)."
    except openai.APIConnectionError:
        return f"could not reach {url}."
    except openai.APIStatusError as exc:
        return f"the endpoint answered {exc.status_code}: {str(exc.message)[:200]}"
    except openai.OpenAIError as exc:
        return str(exc)[:200]
    finally:
        await client.close()
    return None


@dataclass(frozen=True, slots=True)
class ToolSupport:
    """How a model makes tool calls: 'native' (in tool_calls), 'text' (written in its
    reply, which biomd reads too), or 'none'; and whether it used the result."""

    how: str
    used_result: bool
    detail: str


_LOOKUP: Any = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look a word up in the owner's notes.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
        },
    },
}
_ASK = "Use the lookup tool to look up the word 'lighthouse', then tell me what it says."
_RESULT = "lighthouse: the code word is PELICAN-42."


async def try_tool_call(url: str, key: str, model: str, wait_s: float = 300.0) -> ToolSupport:
    """One real tool-call round trip: the model is asked to call a tool, gets its result,
    and answers. A local model on a CPU can take minutes; `wait_s` bounds each call."""
    import openai

    from biomd.models.text_calls import parse

    client = openai.AsyncOpenAI(base_url=url, api_key=key or "none", timeout=wait_s, max_retries=0)
    messages: list[Any] = [{"role": "user", "content": _ASK}]
    try:
        first = await client.chat.completions.create(
            model=model, messages=messages, tools=[_LOOKUP], max_tokens=200
        )
        message = first.choices[0].message
        if message.tool_calls:
            how = "native"
            call = message.tool_calls[0]
            messages += [
                message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": _RESULT},
            ]
        elif parse(message.content or "", {"lookup": ["word"]}).calls:
            how = "text"
            messages += [
                {"role": "assistant", "content": message.content},
                {"role": "user", "content": f"Result of your lookup call:\n{_RESULT}"},
            ]
        else:
            text = " ".join((message.content or "").split())[:120]
            return ToolSupport("none", False, f"it answered without calling the tool: {text!r}")
        second = await client.chat.completions.create(
            model=model, messages=messages, tools=[_LOOKUP], max_tokens=200
        )
    except openai.OpenAIError as exc:
        return ToolSupport("none", False, f"the round trip failed: {str(exc)[:200]}")
    finally:
        await client.close()
    answer = second.choices[0].message.content or ""
    used = "PELICAN" in answer.upper()
    return ToolSupport(how, used, "it used the result" if used else "it ignored the result")


def tool_advice(support: ToolSupport) -> str:
    """What a tool-call check means for the biographer, in a sentence."""
    if support.how == "native":
        return "tool calls come back native: the biographer can research and edit."
    if support.how == "text":
        return (
            "tool calls come back as text, which biomd reads; expect more refused edits and "
            "slower turns than with native tool calls (llama-server needs --jinja; an "
            "Ollama model needs a template with tools)."
        )
    return (
        f"no tool calls came back ({support.detail}): the biographer can answer, but not "
        "read sources or edit bio.md with this model. Pick a model trained for tool use "
        "(for example Qwen2.5 7B or Llama 3.1 8B and up)."
    )
