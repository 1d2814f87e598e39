"""The search cache holds at most its byte bound of memory: an answer of a hundred hits of
short fields is a few KiB of JSON and several times that as dictionaries."""

from __future__ import annotations

import sys

from lightsearch.cache.searches import MemorySearchCache

BOUND = 1024 * 1024


def answer(n: int) -> dict:
    hits = [{"title": "", "url": f"https://a.test/{n}/{i}", "snippet": "", "published_at": None,
             "source_name": None, "content": "", "engines": ["ddg"], "score": 0.0,
             "extra": {f"k{j}": j for j in range(32)}} for i in range(100)]
    return {"provider": "ddg", "hits": hits, "notes": [], "engines": {}, "elapsed_ms": 0}


def test_answers_are_weighed_by_what_they_hold():
    cache = MemorySearchCache(max_entries=256, max_bytes=BOUND)
    for n in range(40):
        cache.put(f"q{n}", answer(n), ttl=600)
    kept = [entry[0] for entry in cache._lru.values()]
    assert 0 < len(kept) < 40
    dicts = sum(sys.getsizeof(h) + sys.getsizeof(h["extra"]) for a in kept for h in a["hits"])
    assert dicts <= BOUND  # the hits' dictionaries alone
    found = cache.get("q39")
    assert found is not None
    assert found[0] == answer(39)
