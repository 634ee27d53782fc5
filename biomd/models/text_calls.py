"""Tool calls written as text. Small local models, and servers that do not parse tool calls
(llama-server without --jinja, an Ollama template without tools), put the call in the
message text instead of `tool_calls`, in many shapes:

    ```json {"name": "search", "arguments": {"query": "Lisbon"}} ```
    <tool_call>{"name": "search", "arguments": {...}}</tool_call>      (also <tools>, <tool>)
    {"type": "function", "function": {"name": "search", "arguments": "{...}"}}
    <function=search>{"query": "Lisbon"}</function>
    <function=search><parameter=query>Lisbon</parameter></function>
    <function><name>search</name><arguments>{...}</arguments></function>
    <function><name>read_source</name><arguments><document_id>6</document_id></arguments>
    <function name="read_source" arguments='{"document_id": 5}'/>
    <edit_profile>{"section": "Timeline", "new_text": "…"}</edit_profile>
    {"query": "Lisbon"}                       (bare arguments: the tool is told by its keys)

`parse` finds them all, in order. Something that looks like a call but cannot be read is
reported as a problem, for the model to fix; it is never taken as the turn's report. Pure
functions only."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[ \t]*([A-Za-z_-]*)[ \t]*\n?(.*?)```", re.S)
_TAG_NAMES = "tool_call|tool_calls|tools|tool|function_call|function_calls|toolcall"
_TAGGED = re.compile(rf"<({_TAG_NAMES})>\s*(.*?)\s*(?:</\1>|$)", re.S | re.I)
_FUNCTION_EQ = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*(?:</function>|$)", re.S)
_PARAMETER_EQ = re.compile(r"<parameter=([\w.-]+)>\s*(.*?)\s*</parameter>", re.S)
_FUNCTION_XML = re.compile(r"<function>\s*(.*?)\s*(?:</function>|$)", re.S)
_FUNCTION_ATTR = re.compile(
    r"<function\s+name=[\"']([\w.-]+)[\"']"
    r"(?:\s+(?:arguments|args|parameters)=(?:'([^']*)'|\"((?:[^\"\\]|\\.)*)\"))?"
    r"\s*(?:/>|>(.*?)</function>)",
    re.S,
)
_XML_ARG = re.compile(r"<([A-Za-z_][\w.-]*)>\s*(.*?)\s*</\1>", re.S)
_XML_FIELD = re.compile(r"<(name|arguments|parameters|args)>\s*(.*?)\s*</\1>", re.S)
_THINK = re.compile(r"<think>.*?(?:</think>|$)|^.*?</think>", re.S)
_ECHOES = re.compile(
    r"<(tool_response|tool_result|tool_output|response)>.*?(?:</\1>|$)", re.S | re.I
)
_NAME_KEYS = ("name", "tool", "tool_name", "function", "recipient_name")
_ARG_KEYS = ("arguments", "parameters", "args", "input", "params", "tool_input")


@dataclass(frozen=True, slots=True)
class TextCall:
    name: str
    arguments: str  # JSON text of an object


@dataclass
class ParsedCall:
    calls: list[TextCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    text: str = ""  # the reply without tool syntax: what the owner may see


def strip_thinking(text: str) -> str:
    """The reply without <think> blocks (a model's private reasoning)."""
    return _THINK.sub("", text).strip() if "think>" in text else text


def visible(text: str) -> str:
    """What the owner may see of a reply: no thinking, no tool syntax, no tool-result echoes."""
    cleaned = _ECHOES.sub("", strip_thinking(text))
    for pattern in (_TAGGED, _FUNCTION_EQ, _FUNCTION_ATTR, _FUNCTION_XML):
        cleaned = pattern.sub("", cleaned)
    cleaned = _FENCE.sub(
        lambda m: "" if _looks_like_call(m.group(2)) or not m.group(2).strip() else m.group(0),
        cleaned,
    )
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip()


def parse(text: str, tools: Mapping[str, Sequence[str]]) -> ParsedCall:
    """Every tool call written in `text`. `tools` maps each tool's name to its argument
    names, which is how bare arguments are matched to a tool."""
    out = ParsedCall()
    body = _ECHOES.sub("", strip_thinking(text))
    spans: list[tuple[int, int]] = []
    calls: list[tuple[int, int, TextCall]] = []

    def taken(start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in spans)

    def add(start: int, end: int, found: list[TextCall], problem: str | None) -> None:
        spans.append((start, end))
        calls.extend((start, i, c) for i, c in enumerate(found))
        if problem:
            out.problems.append(problem)

    for m in _FUNCTION_EQ.finditer(body):
        add(m.start(), m.end(), *_function_eq(m.group(1), m.group(2), m.group(0)))
    for m in _FUNCTION_ATTR.finditer(body):
        if not taken(m.start(), m.end()):
            inner = m.group(2) or (m.group(3) or "").replace('\\"', '"') or m.group(4) or ""
            add(m.start(), m.end(), *_function_eq(m.group(1), inner, m.group(0)))
    for m in _FUNCTION_XML.finditer(body):
        if not taken(m.start(), m.end()):
            add(m.start(), m.end(), *_function_xml(m.group(1), m.group(0)))
    names = "|".join(re.escape(n) for n in tools)
    for m in re.finditer(rf"<({names})>\s*(.*?)\s*(?:</\1>|$)", body, re.S) if names else []:
        if not taken(m.start(), m.end()):  # <edit_profile>{…}</edit_profile>: named by its tag
            add(m.start(), m.end(), *_function_eq(m.group(1), m.group(2), m.group(0)))
    for m in _TAGGED.finditer(body):
        if not m.group(2).strip():  # a lone "<tools>": the model ending its turn, not a call
            spans.append((m.start(), m.end()))
        elif not taken(m.start(), m.end()):
            add(m.start(), m.end(), *_json_calls(m.group(2), tools, m.group(0), strict=True))
    for m in _FENCE.finditer(body):
        if taken(m.start(), m.end()):
            continue
        inner = m.group(2).strip()
        whole = body.strip() == m.group(0).strip()
        if _looks_like_call(inner) or m.group(1).lower() in {"tool_call", "tool", "function"}:
            add(m.start(), m.end(), *_json_calls(inner, tools, m.group(0), strict=True, bare=whole))
        elif m.group(1).lower() == "json" and _objects(inner):
            found, _ = _json_calls(inner, tools, m.group(0), strict=False, bare=True)
            if found:
                add(m.start(), m.end(), found, None)
    rest = _masked(body, spans)
    only_json = _only_json(rest)
    for start, end, value in _objects(rest):
        found = _call_from(value, tools, bare=only_json)
        if found:
            add(start, end, found, None)
        elif _is_schema(value) or _is_schema(
            value.get("function") if isinstance(value, dict) else None
        ):
            spans.append((start, end))
        elif isinstance(value, dict) and _named(value):
            add(start, end, [], _problem(body[start:end], "it names no tool biomd has"))
    out.calls = [c for _, _, c in sorted(calls, key=lambda x: (x[0], x[1]))]
    out.text = visible(_cut(body, spans))
    if not out.calls and not out.problems and _mentions_call(rest, tools):
        out.problems.append(_problem(rest.strip(), "it could not be read as JSON"))
    return out


# -- the shapes ------------------------------------------------------------------------------


def _function_eq(name: str, inner: str, raw: str) -> tuple[list[TextCall], str | None]:
    """<function=NAME>{json}</function> or with <parameter=KEY>value</parameter> inside."""
    params = _PARAMETER_EQ.findall(inner)
    if params:
        return [TextCall(name, json.dumps({k: _scalar(v) for k, v in params}))], None
    value = _arguments(inner)
    if isinstance(value, dict):
        return [TextCall(name, json.dumps(_args_of(value)))], None
    return [], _problem(raw, "its arguments are not a JSON object")


def _function_xml(inner: str, raw: str) -> tuple[list[TextCall], str | None]:
    """<function><name>NAME</name><arguments>{json}</arguments></function>."""
    fields = {k: v for k, v in _XML_FIELD.findall(inner)}
    name = fields.get("name", "").strip()
    if not name:
        value = _load(inner.strip())
        if isinstance(value, dict) and (call := _named(value)):
            return [call], None
        return [], _problem(raw, "it has no <name>")
    args_text = next((fields[k] for k in ("arguments", "parameters", "args") if k in fields), "")
    value = _arguments(args_text)
    if isinstance(value, dict):
        return [TextCall(name, json.dumps(value))], None
    return [], _problem(raw, "its arguments are not a JSON object")


def _json_calls(
    inner: str,
    tools: Mapping[str, Sequence[str]],
    raw: str,
    *,
    strict: bool,
    bare: bool = False,
) -> tuple[list[TextCall], str | None]:
    """One or more calls as JSON (an object, a list, or objects one after another)."""
    values = [v for _, _, v in _objects(inner)]
    echoed = [
        v
        for v in values
        if _is_schema(v) or (isinstance(v, dict) and _is_schema(v.get("function")))
    ]
    values = [v for v in values if not any(v is e for e in echoed)]
    calls = [c for v in values for c in _call_from(v, tools, bare=bare or len(values) == 1)]
    if calls:
        return calls, None
    if echoed and not values:
        return [], None  # a tool's definition repeated back: nothing to run, nothing wrong
    if strict:
        why = "it could not be read as JSON" if not values else "it names no tool biomd has"
        return [], _problem(raw, why)
    return [], None


def _call_from(value: Any, tools: Mapping[str, Sequence[str]], *, bare: bool) -> list[TextCall]:
    if isinstance(value, list):
        return [c for v in value for c in _call_from(v, tools, bare=bare)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return _call_from(value["tool_calls"], tools, bare=False)
    named = _named(value)
    if named is not None:
        return [named] if named.name in tools else []
    if bare:
        return [TextCall(name, json.dumps(value)) for name in _tool_for(value, tools)]
    return []


def _named(value: dict[str, Any]) -> TextCall | None:
    """{"name": .., "arguments": ..}, {"type": "function", "function": {..}} and the like;
    not a tool's schema echoed back (its "parameters" are a JSON schema)."""
    if _is_schema(value) or _is_schema(value.get("function")):
        return None
    fn = value.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        return TextCall(fn["name"], json.dumps(_args_of(fn)))
    for key in _NAME_KEYS:
        name = value.get(key)
        if not (isinstance(name, str) and re.fullmatch(r"[\w.-]+", name)):
            continue
        if any(k in value for k in _ARG_KEYS) or set(value) <= {key, "type", "id"}:
            return TextCall(name.removeprefix("functions."), json.dumps(_args_of(value)))
    return None


def _is_schema(value: Any) -> bool:
    """A tool's definition, as a small model sometimes repeats it, rather than a call."""
    if not isinstance(value, dict):
        return False
    params = value.get("parameters")
    return isinstance(params, dict) and params.get("type") == "object" and "properties" in params


def _args_of(value: dict[str, Any]) -> dict[str, Any]:
    for key in _ARG_KEYS:
        if key in value:
            args = value[key]
            if isinstance(args, str):
                loaded = _load(args)
                return loaded if isinstance(loaded, dict) else {}
            return args if isinstance(args, dict) else {}
    if any(k in value for k in _NAME_KEYS) or "function" in value:
        return {}
    return value


def _tool_for(args: dict[str, Any], tools: Mapping[str, Sequence[str]]) -> list[str]:
    """The one tool whose arguments these keys are, if exactly one fits."""
    keys = set(args)
    if not keys:
        return []
    fits = [name for name, params in tools.items() if keys <= set(params)]
    return fits if len(fits) == 1 else []


# -- JSON in prose ---------------------------------------------------------------------------


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """Every top-level JSON object or array in `text`, with its span."""
    found: list[tuple[int, int, Any]] = []
    i = 0
    while True:
        starts = [p for p in (text.find("{", i), text.find("[", i)) if p >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        if isinstance(value, dict | list) and value:
            found.append((start, end, value))
        i = end


def _arguments(text: str) -> Any:
    """Arguments as JSON, or as XML elements (<offset>0</offset>), or none at all."""
    text = text.strip()
    if not text:
        return {}
    value = _load(text)
    if value is None and (pairs := _XML_ARG.findall(text)):
        return {k: _scalar(v) for k, v in pairs}
    return value


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        objects = _objects(text)
        return objects[0][2] if len(objects) == 1 else None


def _scalar(text: str) -> Any:
    """A <parameter> value: JSON if it is JSON (numbers, lists), else the text itself."""
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans already read blanked out (positions kept)."""
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` without the spans."""
    for s, e in sorted(spans, reverse=True):
        text = text[:s] + text[e:]
    return text


def _only_json(text: str) -> bool:
    """True when `text` is nothing but JSON values (bare arguments are trusted only then)."""
    objects = _objects(text)
    if not objects:
        return False
    rest = _masked(text, [(s, e) for s, e, _ in objects])
    return not rest.strip(" \n\t`,;")


def _looks_like_call(text: str) -> bool:
    return bool(re.search(r'"(name|function|tool)"\s*:', text))


def _mentions_call(text: str, tools: Mapping[str, Sequence[str]]) -> bool:
    """A reply with tool syntax in it that nothing above could read."""
    if re.search(rf"</?({_TAG_NAMES})\b|<function[=>]", text, re.I):
        return True
    names = "|".join(re.escape(n) for n in tools)
    return bool(names) and bool(re.search(rf'"(name|function)"\s*:\s*"({names})"', text))


def _problem(raw: str, why: str) -> str:
    shown = " ".join(raw.split())
    if len(shown) > 160:
        shown = shown[:157] + "…"
    return f"This looks like a tool call, but {why}: {shown}"
