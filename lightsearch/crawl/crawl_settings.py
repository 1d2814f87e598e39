"""A crawl's own copy of its settings, made value by value.

Scrapy's ``Crawler`` starts from ``settings.copy()``, a ``copy.deepcopy`` of the whole
object: some 360 settings, each a priority and a value, walked by deepcopy's generic
machinery. That was the largest part of starting a crawl on the event loop
(docs/UNTRUSTED_WORK.md), and a server starts a crawl for every page it fetches and every
search. :class:`CrawlSettings` copies the way the result reads: every setting at its
priority, a nested settings object copied alike, any other value that can change (a dict,
a list) deep-copied, and a value that cannot (a number, a string, ``None``, a class) shared.
"""

from __future__ import annotations

import copy
import types

from scrapy.settings import BaseSettings, Settings

# The types of values no one can change in place: shared by the copy, as deepcopy shares
# them (looked up by exact type: an isinstance of an abstract class is slow by comparison).
_IMMUTABLE = frozenset({type(None), bool, int, float, complex, str, bytes, type, range, types.FunctionType,
                        types.BuiltinFunctionType})


def _copy_into(source: BaseSettings, target: BaseSettings) -> BaseSettings:
    for name in source:
        value = source[name]
        if type(value) not in _IMMUTABLE:
            if isinstance(value, BaseSettings):
                value = _copy_into(value, BaseSettings())
            else:
                value = copy.deepcopy(value)
        target.set(name, value, source.getpriority(name) or 0)
    return target


class CrawlSettings(Settings):
    """Settings whose :meth:`copy` is made value by value (module text); equal to
    ``Settings.copy``'s in every name, value and priority, and as independent of the
    original."""

    @classmethod
    def of(cls, settings: BaseSettings) -> CrawlSettings:
        """A copy of ``settings`` (a ``Settings`` of any kind) as this class."""
        new = cls.__new__(cls)
        BaseSettings.__init__(new)
        return _copy_into(settings, new)  # type: ignore[return-value]

    def copy(self) -> CrawlSettings:
        return self.of(self)
