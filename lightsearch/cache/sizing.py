"""What a cached value holds in memory, estimated cheaply: the bytes a cache weighs it by.

A parse result can hold far more than the body it came from (short relative links resolved
against a long page URL are each as long as that URL), and a record in memory more than
its serialized form (a token list beside its text, a text of four bytes a character once
it holds one emoji). A cache that weighs an entry by its body or its JSON is then bounded
in name only. :func:`held_bytes` walks the value (containers, dataclasses, objects'
attributes and slots, strings and bytes at ``sys.getsizeof``) and counts each object it
reaches once.

The walk is bounded whatever the value: a container of more than ``SAMPLE`` items is
weighed by ``SAMPLE`` of them, evenly spread, scaled to its length, and at most ``BUDGET``
objects are visited in all, ``DEPTH`` levels deep; beyond that, an object counts its own
size only. A list of
similar entries (links, feed items, sitemap entries, hits) is weighed closely, an outlier
among thousands may be missed: callers that hold a body's parse weigh it at least as the
body's length.
"""

from __future__ import annotations

import sys
import types
from typing import Any

SAMPLE = 64  # items weighed per container; a longer one is scaled from an even sample
BUDGET = 8192  # objects visited per value (milliseconds of work)
DEPTH = 24  # levels walked; deeper objects count their own size
_ATOMS = (str, bytes, bytearray, int, float, complex, bool, type(None))
# Not what a cached value holds but what it may point at: counted as themselves, not walked.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           types.CodeType)


def held_bytes(value: Any) -> int:
    """An estimate of the bytes ``value`` and everything it references hold (shared
    objects reached twice count once)."""
    return _Walk().size(value)


class _Walk:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.left = BUDGET

    def size(self, obj: Any, depth: int = 0) -> int:
        if id(obj) in self.seen:
            return 0
        self.seen.add(id(obj))
        own = sys.getsizeof(obj, 64)
        self.left -= 1
        if self.left <= 0 or depth >= DEPTH or isinstance(obj, _ATOMS + _OPAQUE):
            return own
        return own + self._within(obj, depth + 1)

    def _within(self, obj: Any, depth: int) -> int:
        if isinstance(obj, dict):
            keys = list(obj)
            return self._items(keys, depth) + self._items([obj[k] for k in self._picked(keys)], depth, len(keys))
        if isinstance(obj, (list, tuple)):
            return self._items(obj, depth)
        if isinstance(obj, (set, frozenset)):
            return self._items(list(obj), depth)
        held = 0
        attributes = getattr(obj, "__dict__", None)
        if isinstance(attributes, dict):
            held += self.size(attributes, depth)
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if name not in ("__dict__", "__weakref__"):
                    held += self.size(getattr(obj, name, None), depth)
        return held

    @staticmethod
    def _picked(items: Any) -> list[Any]:
        """At most ``SAMPLE`` of ``items``, evenly spread."""
        count = len(items)
        if count <= SAMPLE:
            return list(items)
        return [items[i * count // SAMPLE] for i in range(SAMPLE)]

    def _items(self, items: Any, depth: int, count: int | None = None) -> int:
        """The items' sizes, scaled from a sample to ``count`` (their number unless the
        items given are already a sample of ``count``)."""
        total = weighed = 0
        for item in self._picked(items):
            if self.left <= 0:
                break
            total += self.size(item, depth)
            weighed += 1
        return total * (len(items) if count is None else count) // weighed if weighed else 0
