"""held_bytes: close to what tracemalloc sees a value allocate, for the shapes the caches
keep, and bounded work whatever the value."""

from __future__ import annotations

import gc
import time
import tracemalloc
from dataclasses import dataclass

from lightsearch.cache.sizing import _Walk, held_bytes
from lightsearch.documents.pagescan import scan_page

LONG_BASE = "https://wide.test/" + "d" * 1900 + "/"


def allocated(make):
    """``make()`` and the bytes tracemalloc saw it allocate and keep."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@dataclass
class Entry:
    url: str
    title: str
    tags: list[str]


def test_long_relative_links_weigh_what_they_hold():
    body = "<html><body>" + "".join(f"<a href={i:x}>" for i in range(600)) + "</body></html>"
    links, truth = allocated(lambda: scan_page(body, LONG_BASE).links)
    assert len(links.links) == 600
    assert truth > 100 * len(body)  # the links hold over a hundred times the body
    assert 0.7 * truth <= held_bytes(links) <= 1.5 * truth


def test_nested_entries_and_dicts_are_weighed_from_a_sample():
    entries, truth = allocated(lambda: [Entry(f"https://a.test/{i}" * 3, f"title {i}" * 5, [f"t{i}", f"u{i}"])
                                        for i in range(5000)])
    assert 0.7 * truth <= held_bytes(entries) <= 1.5 * truth
    table, truth = allocated(lambda: {f"key {i}": {"n": i * 1000, "s": f"value {i}" * 4} for i in range(2000)})
    assert 0.7 * truth <= held_bytes(table) <= 1.5 * truth


def test_a_shared_object_counts_once_and_modules_are_not_walked():
    text = "x" * 100_000
    assert held_bytes([text, text, text]) < 2 * len(text)
    assert held_bytes({"module": time, "f": held_bytes}) < 10_000


def test_the_walk_is_bounded_whatever_the_value():
    deep: list = []
    for _ in range(50_000):  # far deeper than the recursion limit
        deep = [deep]
    wide = [[[f"{i}-{j}-{k}" for k in range(100)] for j in range(100)] for i in range(30)]
    for value in (deep, wide):
        walk = _Walk()
        walk.size(value)
        assert walk.left >= 0  # at most BUDGET objects visited
    assert held_bytes(deep) > 0
