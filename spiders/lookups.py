"""The page names a lookup template (``/wiki/{title}``) is tried with for one query.

A query of one to three content words is itself a likely title ("Ada Lovelace"). A longer
one usually holds a name or two among its other words: "how did ada lovelace describe
the analytical engine" holds "Ada Lovelace" and "Analytical Engine". Without a parser,
the noun phrases are approximated by the runs of content words between stop words,
question words and punctuation; the two longest runs (a name of two or three words is more
likely an article than one word of a sentence) are tried first, then the first two words
of a longer run (a verb or an adjective often follows a name). The source's own name at
the end of a query is not part of a title: a query copied from a page title ("דבורת הדבש –
ויקיפדיה") or typed with the site's name ("honey bee wikipedia") is looked up without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lightsearch.ranking.tokenize import ENGLISH_STOP, HEBREW_STOP

QUESTION_WORDS = frozenset(
    ["what", "who", "whom", "whose", "which", "when", "where", "why", "how", "does", "do", "did", "can",
     "could", "should", "would", "is", "are", "was", "were", "tell", "me", "about", "explain", "define",
     "meaning", "מה", "מי", "מתי", "איפה", "היכן", "למה", "מדוע", "איך", "כיצד", "האם"]
)
MAX_TITLES = 3
MAX_RUN_WORDS = 4
_SEGMENT = re.compile(r"[^\w\s'\-]+|\s[\-\u2013\u2014]\s")  # punctuation, and a spaced dash
_WORD = re.compile(r"\w[\w'\-]*\w|\w")


def _is_stop(word: str) -> bool:
    low = word.lower()
    return low in QUESTION_WORDS or low in ENGLISH_STOP or word in HEBREW_STOP


def _title(words: list[str]) -> str:
    title = "_".join(words)
    return title[:1].upper() + title[1:]


def lookup_titles(query: str, site_words: Iterable[str] = ()) -> list[str]:
    """Up to ``MAX_TITLES`` page names for ``query``, the most likely first; [] for a
    query with no content word."""
    site = {w.lower() for w in site_words}
    found = list(_WORD.finditer(query))
    while found and found[-1].group().lower() in site:
        query = query[: found.pop().start()]
    runs: list[list[str]] = []
    for segment in _SEGMENT.split(query):
        run: list[str] = []
        for word in _WORD.findall(segment):
            if _is_stop(word) or word.isdigit():
                if run:
                    runs.append(run)
                run = []
            else:
                run.append(word)
        if run:
            runs.append(run)
    content = [w for r in runs for w in r]
    if not content:
        return []
    titles: list[str] = []
    words = _WORD.findall(query)
    if len(content) <= 3 and len(runs) == 1 and len(words) == len(content):
        titles.append(_title(content))  # the whole query is a name
    long_runs = sorted((r[:MAX_RUN_WORDS] for r in runs if len(r) >= 2), key=len, reverse=True)
    names = [_title(r) for r in long_runs[:2]]
    if long_runs and len(long_runs[0]) >= 3:
        names.append(_title(long_runs[0][:2]))  # "ada lovelace describe" -> "Ada_lovelace"
    for name in names:
        if name not in titles:
            titles.append(name)
    if not titles and len(runs) == 1 and len(content) == 1:
        titles.append(_title(content))
    return titles[:MAX_TITLES]
