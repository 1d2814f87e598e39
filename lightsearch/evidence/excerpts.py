"""Excerpts: the passage of a page a hit shows, and how much of the text budget it may take."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lightsearch.evidence.model import ResultLimits
from lightsearch.evidence.render import clip_utf8, utf8_len
from lightsearch.ranking.tokenize import tokenize

#: Bytes of model text a hit's header (title, source, date, URL lines) takes, roughly.
HIT_OVERHEAD_BYTES = 320
#: Bytes of model text the preamble and fences take, roughly.
FRAME_BYTES = 512
#: No excerpt is clipped below this many bytes to make a fair share.
MIN_EXCERPT_BYTES = 160


def clip_excerpt(text: str, max_chars: int, max_bytes: int) -> tuple[str, bool]:
    """``text`` cut to ``max_chars`` characters and ``max_bytes`` UTF-8 bytes, on a word end.

    Returns the excerpt and whether anything was cut (per-source clipping).
    """
    if len(text) <= max_chars and utf8_len(text) <= max_bytes:
        return text, False
    ellipsis = "…"
    cut = clip_utf8(text[: max(0, max_chars - 1)], max(0, max_bytes - utf8_len(ellipsis)))
    space = cut.rfind(" ")
    if space > len(cut) // 2:
        cut = cut[:space]
    return cut.rstrip() + ellipsis, True


def excerpt_budget(limits: ResultLimits, hits_with_content: int) -> int:
    """Bytes of page text each hit may show: a fair share of the text limit after headers."""
    n = max(1, hits_with_content)
    share = (limits.text_max_bytes - FRAME_BYTES - n * HIT_OVERHEAD_BYTES) // n
    return max(MIN_EXCERPT_BYTES, share)


_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")


def excerpt(text: str, terms: Iterable[str], max_chars: int) -> str:
    """Up to ``max_chars`` of consecutive sentences of ``text``, around its densest match.

    The snippet is the few sentences richest in query terms; the excerpt widens that to
    the per-source budget: it starts one sentence before the best three-sentence window
    and reads on, then back, so the model gets the passage in context.
    """
    sentences = [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
    if not sentences:
        return ""
    terms = set(terms)
    found = [set(tokenize(s)) & terms for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (len(set().union(*found[i : i + 3])), -i))
    start = end = max(0, best - 1)
    used = 0
    while end < len(sentences) and used + len(sentences[end]) + 1 <= max_chars:
        used += len(sentences[end]) + 1
        end += 1
    while start > 0 and used + len(sentences[start - 1]) + 1 <= max_chars:
        start -= 1
        used += len(sentences[start]) + 1
    if end == start:  # one sentence longer than the budget: clip_excerpt cuts it
        end = start + 1
    return ("…" if start > 0 else "") + " ".join(sentences[start:end])


def excerpt_clipped(passage: str, text: str) -> bool:
    """Whether the excerpt ``passage`` shows less than the page ``text`` it came from
    (compared without its ellipses, white space folded as :func:`excerpt` joins sentences)."""
    return _folded_len(passage.strip("…")) < _folded_len(text)


def _folded_len(text: str) -> int:
    return len(" ".join(text.split()))
