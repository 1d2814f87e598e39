"""Malformed textual tool calls in model output, turned into proper calls (a pseudo-tool-call
sanitizer).

Small models often write a tool call as text instead of using the function-calling
channel: JSON (``{"name": "web_search", "arguments": {...}}``, in a code fence or not, with
single quotes or trailing commas), XML-like markup (``<web_search><query>..</query>
</web_search>``, ``<tool_call>{...}</tool_call>``, ``<invoke name="web_fetch"><parameter
name="url">..</parameter></invoke>``, ``<function=web_search>{...}</function>``) or a
function call (``web_search(query="x", maxResults=3)``, ``web_fetch("https://..")``).
:func:`repair` finds those for our three tools, validates each against the tool's schema,
and returns the calls plus the text with the markup removed, or a clear "not a call".
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

NAMES = {"web_search": "web_search", "web_news": "web_news", "web_fetch": "web_fetch",
         "web.search": "web_search", "web.news": "web_news", "web.fetch": "web_fetch",
         "websearch": "web_search", "webfetch": "web_fetch", "webnews": "web_news"}
FIRST_FIELD = {"web_search": "query", "web_news": "query", "web_fetch": "url"}
_NAME = r"(?:web[._]?(?:search|news|fetch))"
_ARG_KEYS = ("arguments", "args", "parameters", "params", "input", "tool_input")
_NAME_KEYS = ("name", "tool", "tool_name", "function", "recipient_name")
MAX_TEXT = 200_000
# A call's arguments as JSON text: every tool's arguments at their bounds (5 URLs of 2,048
# characters, 5 queries of 400) fit many times over.
MAX_ARGUMENTS_TEXT = 64 * 1024
MAX_ARGUMENTS_DEPTH = 16


@dataclass
class RepairedCall:
    name: str
    arguments: dict[str, Any]
    source: str  # the text that was the call
    error: dict[str, Any] | None = None  # the structured error when the call does not validate

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class Repair:
    calls: list[RepairedCall] = field(default_factory=list)
    text: str = ""  # the model text with the recognised calls removed
    reason: str | None = None  # why nothing was a call

    @property
    def is_call(self) -> bool:
        return any(c.ok for c in self.calls)


def _loads(blob: str) -> Any:
    """JSON, or the JSON-like dialects models write (single quotes, trailing commas, bare
    keys, Python's ``True``/``None``), repaired by ``json_repair``, which never rewrites the
    inside of a string (a query about "the null hypothesis" keeps its words). Trailing
    commas, the commonest slip, are dropped first and the rest read as strict JSON."""
    for candidate in (blob, _without_trailing_commas(blob)):
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            pass
    import json_repair

    try:
        value = json_repair.loads(blob)
    except (ValueError, TypeError, RecursionError, MemoryError, IndexError):
        return None
    return _paired(value) if isinstance(value, dict | list) else None


def arguments_from_text(text: str) -> dict[str, Any] | None:
    """A call's arguments written as JSON text, as OpenAI's function calling sends them
    (``'{"query": "x"}'``), read as the calls in model text are (:func:`_loads`); None when
    the text is not a JSON object or is longer than any call's arguments can be."""
    if len(text) > MAX_ARGUMENTS_TEXT or _nesting(text) > MAX_ARGUMENTS_DEPTH:
        return None
    value = _loads(text)
    return value if isinstance(value, dict) else None


def _unquoted(text: str, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, str]]:
    """The characters of ``text[start:stop]`` outside its quoted strings (quotes and
    backslash escapes read as JSON and Python write them), with their indexes."""
    quote, escaped = None, False
    for i in range(start, len(text) if stop is None else min(len(text), stop)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        else:
            yield i, ch


def _nesting(text: str) -> int:
    """How deep ``text``'s brackets nest outside its strings: the lenient reader spends
    time that grows with it, and no call's arguments nest more than a few levels."""
    depth = deepest = 0
    for _, ch in _unquoted(text):
        if ch in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "}]":
            depth = max(0, depth - 1)
    return deepest


def _without_trailing_commas(blob: str) -> str:
    """``blob`` without a comma that only whitespace separates from a closing bracket,
    commas inside strings left alone."""
    out: list[str] = []
    quote, escaped = None, False
    for ch in blob:
        if quote:
            escaped = ch == "\\" and not escaped
            if ch == quote and not escaped:
                quote = None
        elif ch == '"':
            quote = ch
        elif ch in "}]":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()
        out.append(ch)
    return "".join(out)


def _paired(value: Any) -> Any:
    """``value`` with every ``\\ud83d\\ude00``-style escaped surrogate pair joined into its
    one character, as ``json.loads`` joins them (``json_repair`` leaves two halves)."""
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return value
    if isinstance(value, dict):
        return {_paired(k): _paired(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_paired(v) for v in value]
    return value


def _from_object(obj: Any) -> tuple[str, Any] | None:
    """(tool, arguments) from a decoded JSON-like object, or None."""
    if not isinstance(obj, dict):
        return None
    fn = obj.get("function")
    if isinstance(fn, dict):  # OpenAI's {"type": "function", "function": {"name", "arguments"}}
        return _from_object(fn)
    for key in _NAME_KEYS:
        name = obj.get(key)
        if isinstance(name, str) and name.strip().lower() in NAMES:
            args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), None)
            if args is None:
                args = {k: v for k, v in obj.items() if k not in _NAME_KEYS and k != "type"}
            if isinstance(args, str):  # OpenAI sends arguments as a JSON string
                args = arguments_from_text(args)
            return NAMES[name.strip().lower()], args
    if len(obj) == 1:
        (key, value), = obj.items()
        if isinstance(key, str) and key.lower() in NAMES and isinstance(value, dict):
            return NAMES[key.lower()], value
    return None


def _closing(text: str, start: int, opening: str, closing: str) -> int | None:
    """The end (exclusive) of the bracketed span opening at ``start`` (``{...}`` or
    ``(...)``), brackets inside quoted strings ignored; None when it does not close within
    20,000 characters."""
    depth = 0
    for i, ch in _unquoted(text, start, start + 20_000):
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


_XML_WRAPPED = re.compile(
    r"<(?P<tag>tool_call|function_call|tool_use|toolcall)>\s*(?P<body>.*?)\s*</(?P=tag)>", re.S | re.I)
_XML_FUNCTION = re.compile(rf"<function=(?P<name>{_NAME})>\s*(?P<body>.*?)\s*</function>", re.S | re.I)
_XML_INVOKE = re.compile(rf"<invoke\s+name=[\"'](?P<name>{_NAME})[\"']\s*>(?P<body>.*?)</invoke>", re.S | re.I)
_XML_PARAM = re.compile(r"<parameter\s+name=[\"'](?P<key>\w+)[\"']\s*>(?P<value>.*?)</parameter>", re.S | re.I)
_XML_TOOL = re.compile(rf"<(?P<name>{_NAME})\b[^>]*>(?P<body>.*?)</(?P=name)>", re.S | re.I)
_XML_CHILD = re.compile(r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>", re.S)
_CALL = re.compile(rf"\b(?P<name>{_NAME})\s*\(", re.I)
_EMPTY_WRAPPER = re.compile(r"<(?P<tag>function_calls|tool_calls|tools)>\s*</(?P=tag)>", re.I)
_FENCE = re.compile(r"```(?:json|tool_call|tool|xml)?\s*\n?(?P<body>.*?)```", re.S | re.I)


def _scalar(value: str) -> str:
    """An XML-like value as the model wrote it, without the layout around it; a number or a
    boolean written as text is converted where the tool's schema says so (``check``)."""
    return value.strip()


def _call_args(name: str, inner: str) -> dict[str, Any] | None:
    """``query="x", maxResults=3`` or ``"x"`` or ``{"query": "x"}`` as arguments."""
    inner = inner.strip()
    if not inner:
        return {}
    if inner.startswith("{"):
        obj = _loads(inner)
        return obj if isinstance(obj, dict) else None
    try:
        node = ast.parse(f"f({inner})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Call):
        return None
    out: dict[str, Any] = {}
    try:
        for i, arg in enumerate(node.args):
            if i > 0:
                return None
            out[FIRST_FIELD[name]] = ast.literal_eval(arg)
        for kw in node.keywords:
            if kw.arg is None:
                return None
            out[kw.arg] = ast.literal_eval(kw.value)
    except ValueError:
        return None
    return out


def find_calls(text: str) -> list[tuple[int, int, str, Any]]:
    """Every pseudo-call in ``text``: (start, end, tool, raw arguments), not overlapping."""
    found: list[tuple[int, int, str, Any]] = []

    def add(start: int, end: int, name: str, args: Any) -> None:
        if any(s < end and start < e for s, e, _, _ in found):
            return
        found.append((start, end, name, args))

    for m in _XML_WRAPPED.finditer(text):
        got = _from_object(_loads(m["body"])) if m["body"].lstrip().startswith("{") else None
        if got is None:
            inner = find_calls(m["body"])
            if inner:
                got = inner[0][2], inner[0][3]
        if got:
            add(m.start(), m.end(), *got)
    for m in _XML_FUNCTION.finditer(text):
        body = m["body"]
        args = _loads(body) if body.lstrip().startswith("{") else {
            p["key"]: _scalar(p["value"]) for p in _XML_PARAM.finditer(body)}
        add(m.start(), m.end(), NAMES[m["name"].lower()], args)
    for m in _XML_INVOKE.finditer(text):
        add(m.start(), m.end(), NAMES[m["name"].lower()],
            {p["key"]: _scalar(p["value"]) for p in _XML_PARAM.finditer(m["body"])})
    for m in _XML_TOOL.finditer(text):
        body = m["body"].strip()
        name = NAMES[m["name"].lower()]
        if body.startswith("{"):
            args = _loads(body)
        else:
            children = {c["key"]: _scalar(c["value"]) for c in _XML_CHILD.finditer(body)}
            args = children or ({FIRST_FIELD[name]: body} if body else {})
        add(m.start(), m.end(), name, args)
    for m in _FENCE.finditer(text):
        body = m["body"].strip()
        if body.startswith("{"):
            got = _from_object(_loads(body))
            if got:
                add(m.start(), m.end(), *got)
    i = 0
    while (i := text.find("{", i)) >= 0:
        end = _closing(text, i, "{", "}")
        if end is None:
            break
        got = _from_object(_loads(text[i:end]))
        if got:
            add(i, end, *got)
            i = end
        else:
            i += 1
    for m in _CALL.finditer(text):
        end = _closing(text, m.end() - 1, "(", ")")
        if end is None:
            continue
        name = NAMES[m["name"].lower()]
        args = _call_args(name, text[m.end():end - 1])
        if args is not None:
            add(m.start(), end, name, args)
    return sorted(found)


def repair_with(text: str, check: Callable[[str, Any], dict[str, Any]]) -> Repair:
    """Recognise pseudo tool calls of web_search/web_news/web_fetch in ``text``.

    ``check(name, arguments)`` validates one call (raising ``LightSearchError``); a call
    that does not validate keeps its structured error in ``error``. ``text`` is the input
    with the calls removed, so no raw tool markup reaches a user.
    (:func:`lightsearch.surfaces.toolbox.repair` checks against the deployment's schemas.)
    """
    from lightsearch.errors import LightSearchError

    if not isinstance(text, str) or not text.strip():
        return Repair(text=text if isinstance(text, str) else "", reason="not a call: the text is empty")
    text = text[:MAX_TEXT]
    calls: list[RepairedCall] = []
    kept: list[str] = []
    last = 0
    for start, end, name, args in find_calls(text):
        kept.append(text[last:start])
        last = end
        source = text[start:end]
        try:
            calls.append(RepairedCall(name, check(name, args), source))
        except LightSearchError as exc:
            calls.append(RepairedCall(name, args if isinstance(args, dict) else {}, source, exc.to_dict()["error"]))
    kept.append(text[last:])
    cleaned = _EMPTY_WRAPPER.sub("", "".join(kept))
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned).strip()
    reason = None
    if not calls:
        reason = "not a call: no web_search, web_news or web_fetch call was found in the text"
    elif not any(c.ok for c in calls):
        reason = "not a call: " + "; ".join(c.error["message"] for c in calls if c.error)
    return Repair(calls=calls, text=cleaned, reason=reason)
