"""JSON from a search API, loaded and cut to a bounded shape.

An answer may be megabytes of JSON (2 MiB for the engines, 1 MiB for Brave), and its
shape, not its size, decides what loading it costs: small nested arrays or empty objects
make a Python object of every few bytes (docs/UNTRUSTED_WORK.md has the figures). A body
over the in-process size is loaded in a worker (lightsearch/isolation/apart.py). Before
loading, its separators are counted (one pass of C over the bytes): a body that would
make more than :data:`MAX_LOADED` objects is refused unread, so loading never makes more.
Whatever is loaded is cut before it is handed on: at most :data:`MAX_ITEMS` items of a list, :data:`MAX_STRING`
characters of a string or key, :data:`MAX_DEPTH` levels, :data:`MAX_VALUES` values in all
(depth first, in document order). What comes back to the event loop's process, and what
an engine's parser walks there, is bounded by these, whatever the body held. An API's
real answer (20 results, their snippets and metadata) is far inside them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lightsearch.errors import LightSearchError, quote_untrusted

MAX_DEPTH = 32
MAX_ITEMS = 200
MAX_STRING = 32 * 1024
MAX_VALUES = 20_000
# Separators (``,`` ``[`` ``{``) a body may hold to be loaded at all: every value but the
# first of a container follows a comma. Real answers hold hundreds to a few thousand.
MAX_LOADED = 200_000


@dataclass
class Cut:
    """The bounded value, whether anything was left out, and how many values were kept."""

    value: Any
    cut: bool = False
    values: int = 0


def load_bounded(body: bytes | str) -> Cut:
    """The JSON ``body``, cut to the bounds; LightSearchError ``parse_error`` when it is not
    JSON (nesting too deep for the parser included), ``too_large`` when it would make more
    than :data:`MAX_LOADED` values."""
    if isinstance(body, bytes):
        separators = body.count(b",") + body.count(b"[") + body.count(b"{")
    else:
        separators = body.count(",") + body.count("[") + body.count("{")
    if separators > MAX_LOADED:
        raise LightSearchError("too_large", f"the JSON would make more than {MAX_LOADED:,} values",
                               {"reason": "json_values", "limit": MAX_LOADED})
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: json raises it, not ValueError, on a deeply nested document.
        raise LightSearchError("parse_error", f"not JSON ({type(exc).__name__}: "
                               f"{quote_untrusted(str(exc), 40, sentence=True)})",
                               {"reason": "unparseable"}) from None
    return cut(value)


def cut(value: Any) -> Cut:
    """``value`` (a loaded JSON value) cut to the bounds."""
    out = Cut(None)
    out.value = _cut(value, 0, out)
    return out


def _cut(value: Any, depth: int, state: Cut) -> Any:
    state.values += 1
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            state.cut = True
            return value[:MAX_STRING]
        return value
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            state.cut = True
            return []
        items = []
        for item in value[:MAX_ITEMS]:
            if state.values >= MAX_VALUES:
                break
            items.append(_cut(item, depth + 1, state))
        state.cut = state.cut or len(items) < len(value)
        return items
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            state.cut = True
            return {}
        fields = {}
        for key, item in value.items():
            if state.values >= MAX_VALUES:
                break
            state.values += 1
            fields[key[:MAX_STRING]] = _cut(item, depth + 1, state)
        state.cut = state.cut or len(fields) < len(value)
        return fields
    return value
