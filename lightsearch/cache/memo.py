"""A memo of a one-string function that keeps short arguments only.

The URL and text memos (a URL's canonical form, its origin, its slug's terms, whether it
may be requested; a title's terms; a word's stem) are ``functools.lru_cache``s bounded by
entries, and their keys come from pages: a page of short relative links resolved against
a URL of nearly 2,048 characters fills them with URLs of that length, each entry kept
beside its answer (a canonical form is as long again). Here an argument longer than
``max_chars`` is computed each time and never kept, so a memo holds at most
``maxsize`` x ``max_chars`` characters whatever the pages say; what is memoised for speed
(a site's navigation links, the words of titles, met again by every search) is short.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import TypeVar

R = TypeVar("R")
URL_CHARS = 256  # a URL is memoised up to this length
TEXT_CHARS = 512  # a title, an anchor or a feed summary, up to this length
WORD_CHARS = 64  # a word to stem


def short_memo(maxsize: int, max_chars: int) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
    """``lru_cache(maxsize)`` for arguments of at most ``max_chars`` characters."""

    def wrap(fn: Callable[[str], R]) -> Callable[[str], R]:
        cached = lru_cache(maxsize=maxsize)(fn)

        def call(arg: str) -> R:
            return cached(arg) if len(arg) <= max_chars else fn(arg)

        update_wrapper(call, fn)
        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return wrap


