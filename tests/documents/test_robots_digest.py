"""The digest of a robots.txt (documents/robots_digest.py): protego's verdicts on the whole file,
from the one group that binds the crawler, within the rules' bounds; and what the robots
cache weighs for it.

The equivalence is a property: real files of the shared corpus and hostile ones built by
hypothesis (many groups and agents, product tokens with ``*``, rules before any group,
misspelled and colon-less directives, comments, ``$`` and ``*`` patterns), parsed whole by
protego and parsed from their digest, answer every URL alike.
"""

from __future__ import annotations

import gc
import os
import tracemalloc

import protego
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from protego import Protego

from lightsearch.cache.robots import MemoryRobotsCache
from lightsearch.crawl.middlewares.robotstxt import parse_robots
from lightsearch.documents.robots_digest import (
    MAX_RULES,
    MAX_SITEMAPS,
    MAX_TEXT_BYTES,
    digest_robots,
    parsed_bytes,
)
from tests.conftest import SHARED_DATA

PROPERTY = settings(max_examples=24, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
AGENTS = ["lightbot", "lightsearch/0.1 (+https://github.com/lightsearch/lightsearch; lightbot)", "otherbot"]
URLS = ["https://r.test/", "https://r.test/private/x", "https://r.test/a/b.html?q=1", "https://r.test/index.html",
        "https://r.test/%E2%82%AC/x$", "https://r.test/public/deep/page", "https://r.test/robots.txt",
        "https://r.test/a*b/c", "https://r.test/search?q=light"]


def corpus() -> list[bytes]:
    root = SHARED_DATA / "robots-txt" / "files"
    if not root.is_dir():
        return []
    return [p.read_bytes()[:64 * 1024] for p in sorted(root.iterdir()) if p.is_file() and p.name != "SOURCE.md"]


_TOKENS = st.sampled_from(["*", "lightbot", "LightBot", "light*bot", "*bot", "bot", "otherbot", "light", "lightbot-x",
                           "x-lightbot", "googlebot", "lightsearch"])
_PATHS = st.sampled_from(["/", "/private", "/private/", "/*.html$", "/a*b", "/index.html", "/$", "*", "/p?q=",
                          "/%E2%82%AC", "/€", "/a/*/c$", "", "/public"])
_FIELDS = st.sampled_from(["User-agent", "user-agent", "useragent", "User agent", "Allow", "Disallow", "disalow",
                           "Sitemap", "Crawl-delay", "Host", "Request-rate", "Noindex", "Foo"])


@st.composite
def robots_lines(draw: st.DrawFn) -> str:
    """A robots.txt in lines a real parser meets: groups, stray rules, odd spellings."""
    lines = []
    for _ in range(draw(st.integers(0, 40))):
        field = draw(_FIELDS)
        if field.lower().replace(" ", "-") in ("user-agent", "useragent"):
            value = draw(_TOKENS)
        elif field == "Sitemap":
            value = f"https://r.test/s{draw(st.integers(0, 99))}.xml"
        elif field in ("Crawl-delay", "Request-rate"):
            value = draw(st.sampled_from(["1", "1/5", "x", ""]))
        else:
            value = draw(_PATHS)
        separator = draw(st.sampled_from([": ", ":", " ", ":\t"]))
        comment = draw(st.sampled_from(["", " # note", "#"]))
        lines.append(f"{field}{separator}{value}{comment}")
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)


def same_verdicts(text: str, agent: str) -> None:
    whole = Protego.parse(text)
    digest = digest_robots(text.encode("utf-8", "surrogatepass"), agent)
    assert not digest.over
    part = Protego.parse(digest.text)
    for url in URLS:
        assert part.can_fetch(url, agent) == whole.can_fetch(url, agent), (url, digest.text)
    assert list(part.sitemaps) == list(whole.sitemaps)[:MAX_SITEMAPS]


@PROPERTY
@given(robots_lines(), st.sampled_from(AGENTS))
@example("User-agent: a\nUser-agent: lightbot\nDisallow: /private\nUser-agent: lightbot\nAllow: /private/x\n",
         "lightbot")
@example("Disallow: /before-any-group\nUser-agent: *\nSitemap: https://r.test/s.xml\nUser-agent: lightbot\n"
         "Disallow: /private\n", "lightbot")
@example("User-agent: light*bot\nDisallow: /private\nUser-agent: *\nDisallow: /\n", "lightbot")
@example("useragent lightbot\ndisalow /private\n", "lightbot")
def test_the_digest_answers_as_the_whole_file(text, agent):
    same_verdicts(text, agent)


def test_the_digest_answers_as_every_real_file():
    for body in corpus():
        text = body.decode("utf-8", "replace").lstrip("\ufeff")
        for agent in AGENTS:
            digest = digest_robots(body, agent)
            if not digest.over:
                same_verdicts(text, agent)


@PROPERTY
@given(st.integers(1, 3 * MAX_RULES), st.integers(0, 200), st.integers(0, 3), st.sampled_from(["lightbot", "*"]))
@example(20_000, 0, 2, "*")  # 500 KiB of wildcard rules
@example(10, 30_000, 0, "lightbot")  # thousands of groups for other crawlers
def test_what_is_kept_is_within_the_bounds(rules, groups, stars, token):
    """Many rules, many groups for other crawlers, long wildcard patterns: the digest keeps
    the rules of one group, and no more than the bounds; past them it keeps nothing."""
    other = "".join(f"User-agent: bot{i}\nDisallow: /x{i}\n" for i in range(groups))
    body = (other + f"User-agent: {token}\n"
            + "".join(f"Disallow: /{'a*' * stars}{i}$\n" for i in range(rules))).encode()
    digest = digest_robots(body, "lightbot")
    assert digest.rules == rules
    assert digest.lines == body.count(b"\n")
    if rules > MAX_RULES:
        assert digest.over
        assert digest.text == ""
        assert parse_robots(body, "lightbot").verdict == "block"
        assert parse_robots(body, "lightbot").reason == "robots_rules"
    else:
        assert len(digest.text.encode()) <= MAX_TEXT_BYTES
        assert digest.text.count("\n") == 1 + rules  # the group's line and its rules, no other group


def test_a_group_too_long_to_hold_blocks_the_origin():
    body = b"User-agent: *\n" + b"".join(b"Disallow: /" + b"x" * 400 + b"%d\n" % i for i in range(200))
    digest = digest_robots(body, "lightbot")
    assert digest.rules == 200
    assert digest.over
    assert parse_robots(body, "lightbot").verdict == "block"


def measured(text: str) -> int:
    """What protego holds for ``text``: the memory still allocated from inside its calls
    (threads of the test process that allocate meanwhile are not counted, nor finalizers
    that a garbage collection would run inside those calls: collection is off meanwhile)."""
    gc.collect()
    gc.disable()
    tracemalloc.start(64)
    try:
        parser = Protego.parse(text)
        parser.can_fetch("https://r.test/a", "lightbot")  # protego indexes on the first match
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
        gc.enable()
    del parser
    package = os.path.join(os.path.dirname(protego.__file__), "*")
    inside = snapshot.filter_traces([tracemalloc.Filter(True, package, all_frames=True)])
    return sum(stat.size for stat in inside.statistics("filename"))


_VALUES = st.builds(lambda head, stars, tail, dollar: head + "*".join(["a"] * stars) + tail + dollar,
                    st.sampled_from(["/", "/€/", "/%E2%82%AC", "/" + "x" * 300, "/d/"]), st.integers(0, 40),
                    st.sampled_from(["", "index.html", "é" * 50, "/p?q=1"]), st.sampled_from(["", "$"]))


@settings(PROPERTY, max_examples=12)
@given(st.lists(st.tuples(st.sampled_from(["Allow", "Disallow"]), _VALUES), min_size=1, max_size=40),
       st.integers(0, 5))
def test_the_cache_weight_covers_what_protego_holds(rules, sitemaps):
    text = "User-agent: lightbot\n" + "".join(f"{kind}: {value}\n" for kind, value in rules) \
        + "".join(f"Sitemap: https://r.test/s{i}.xml\n" for i in range(sitemaps))
    assert measured(text) <= parsed_bytes(text)


def test_the_robots_cache_weighs_the_parsed_rules_not_the_body():
    """500 wildcard rules: 12 KiB of text, close to a megabyte once parsed. The cache counts
    the megabyte, so 4 MiB holds a few such origins, not hundreds."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b%d*c$\n" % (i, i) for i in range(MAX_RULES))
    rules = parse_robots(body, "lightbot")
    assert rules.verdict == "rules"
    held = measured(rules.text)
    assert rules.size >= held > 8 * len(body)
    cache = MemoryRobotsCache(64, 4 * 1024 * 1024, 86400)
    kept = sum(cache.put(f"https://o{i}.test", rules, 2e9) for i in range(64))
    assert cache.lru.bytes <= 4 * 1024 * 1024
    assert kept >= 1
    assert len(cache) < 64
