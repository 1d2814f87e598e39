"""What the pool's workers run: every task takes plain data (text, bytes, strings) and
returns plain data, so it crosses the pipe, and raises
:class:`~lightsearch.errors.LightSearchError` for what it cannot read.

The extraction stack (trafilatura and the documents modules built on it) is imported by
the functions that use it, so the process that runs the event loop, which only sends
these functions by name, never pays for it; the fork server imports it once for every
worker (:data:`PRELOAD`). pypdf and feedparser (a good share of that import time) are left to
the first PDF or feed a worker reads: most searches read neither, and the fork server is
ready sooner.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from lightsearch.documents import Document
from lightsearch.documents.pagescan import MAX_PAGE_LINKS, PageScan, scan_page
from lightsearch.documents.robots_digest import RobotsDigest, digest_robots
from lightsearch.documents.sitemaps import SitemapDocument, read_sitemap
from lightsearch.errors import LightSearchError
from lightsearch.isolation.worker import task_deadline
from lightsearch.ranking.tokenize import tokenize

if TYPE_CHECKING:
    from lightsearch.documents.boundedjson import Cut
    from lightsearch.documents.feeds import Feed, NewsFeed
    from lightsearch.documents.serp import SerpPage

# What the fork server imports for the workers: the extraction stack the tasks import
# when they run.
PRELOAD = ("lightsearch.documents.html_extract", "lightsearch.documents.readable", "lightsearch.documents.walls",
           "lightsearch.documents.pdf")

FEED_ENTRIES = 50  # entries web_fetch lists of a feed
# Input caps, a first line before the worker's time and memory limits: a page is read up
# to its MAX_ELEMENTS-th element or its MAX_BLOCKS-th block of text (paragraph, div, list
# item, cell, line break...): trafilatura's cost grows faster than the page
# (docs/EVALUATION.md), and a real page, even a long one, has a few thousand blocks. The
# caps do not make a page cheap (the worst shape at MAX_BLOCKS still costs seconds): the
# pool's time limit is what bounds it.
# Discovery reads at most MAX_PAGE_LINKS links of a page (documents/pagescan.py).
MAX_ELEMENTS = 50_000
MAX_BLOCKS = 10_000
_ELEMENT = re.compile(r"<[A-Za-z]")
_BLOCK = re.compile(r"<(?:p|div|li|dd|dt|td|th|tr|br|h[1-6]|pre|blockquote|section|article)[\s>/]",
                    re.IGNORECASE)
# Work that can stop with a partial result (a PDF, page by page) stops this long before
# the pool would kill it, so what it read comes back.
PARTIAL_MARGIN_SECS = 0.5


def stop_at(deadline_at: float | None) -> float | None:
    """The earlier of the caller's deadline and the pool's kill time, less a margin."""
    ends = [t for t in (deadline_at, task_deadline()) if t is not None]
    return min(ends) - PARTIAL_MARGIN_SECS if ends else None


def capped(html: str) -> tuple[str, str | None]:
    """``html`` cut before its :data:`MAX_ELEMENTS`-th element or :data:`MAX_BLOCKS`-th
    block (the parser closes what the cut leaves open), and a note saying so; or ``html``
    as it is and None."""
    cut = len(html)
    for pattern, limit, what in ((_ELEMENT, MAX_ELEMENTS, "elements"), (_BLOCK, MAX_BLOCKS, "blocks of text")):
        past = next(itertools.islice(pattern.finditer(html), limit, None), None)
        if past is not None and past.start() < cut:
            cut, note = past.start(), f"the page has more than {limit:,} {what}; the first {limit:,} were read"
    return (html, None) if cut == len(html) else (html[:cut], note)


# ---------------------------------------------------------------------- Light
def light_document(item: dict[str, Any]) -> Document | None:
    """A fetched page of a Light search as a rankable Document (None: no main text);
    a page cut at an input cap is a partial document."""
    from lightsearch.documents.html_extract import extract_html

    html, cut = capped(item["html"])
    fields = extract_html(html, item["url"])
    text = fields["text"] or ""
    if not text.strip():
        return None
    doc = Document(
        url=item["url"],
        source_id=item["source_id"],
        title=fields["title"] or item["url"],
        text=text,
        retrieved_at=item["retrieved_at"],
        language=fields["language"],
        published_at=fields["published_at"],
        modified_at=fields["modified_at"],
        original_url=item.get("original_url"),
        status=item.get("status", 200),
        partial=bool(item.get("partial")) or cut is not None,
        discovered_via=item.get("stage", "page"),
        expires_at=item.get("expires_at"),
    )
    doc.tokens = tokenize(f"{doc.title}\n{doc.text}")
    return doc


def feed(body: bytes, limit: int) -> Feed:
    from lightsearch.documents.feeds import read_feed

    return read_feed(body, limit)


def sitemap(body: bytes, url: str, max_bytes: int, max_entries: int) -> SitemapDocument:
    return read_sitemap(body, url, max_bytes=max_bytes, max_entries=max_entries)




def page(html: str, url: str, agents: frozenset[str]) -> PageScan:
    """What discovery reads of a page, from one walk: its robots meta values, its links
    (at most :data:`MAX_PAGE_LINKS`, the rest counted as dropped) and its ``rel=next``."""
    return scan_page(html, url, agents, max_links=MAX_PAGE_LINKS)


def robots(body: bytes, agent: str) -> RobotsDigest:
    """A robots.txt read into the group that binds ``agent`` and its sitemaps."""
    return digest_robots(body, agent)


# ---------------------------------------------------------------------- engine answers
def json_answer(body: bytes) -> Cut:
    """An API's JSON answer, loaded and cut to a bounded shape (documents/boundedjson.py)."""
    from lightsearch.documents.boundedjson import load_bounded

    return load_bounded(body)


def ddg_page(html: str, lite: bool) -> SerpPage:
    """A DuckDuckGo result page (html or lite), read in one pass (documents/serp.py)."""
    from lightsearch.documents.serp import read_ddg

    return read_ddg(html, lite)


def news_feed(body: bytes) -> NewsFeed:
    """A news search engine's RSS answer (Google News), its first entries as written."""
    from lightsearch.documents.feeds import read_news

    return read_news(body)


# ---------------------------------------------------------------------- web_fetch
def read_body(kind: str, url: str, content: str | bytes, markdown: bool, max_pages: int,
              deadline_at: float | None, comments: bool = False) -> dict[str, Any]:
    """web_fetch's reading of one response body of ``kind`` (``html``: text, ``pdf`` and
    ``feed``: bytes) as the fields of its result; ``comments``: an article's comments too."""
    if kind == "pdf":
        assert isinstance(content, bytes)
        return read_pdf_page(content, max_pages, stop_at(deadline_at))
    if kind == "feed":
        assert isinstance(content, bytes)
        return {**summarise_feed(content), "format": "text"}
    assert isinstance(content, str)
    return read_html(content, url, markdown, comments)


def read_html(html: str, url: str, markdown: bool, comments: bool = False) -> dict[str, Any]:
    from lightsearch.documents.pagekinds import LISTING
    from lightsearch.documents.readable import extract_readable
    from lightsearch.documents.walls import detect_wall

    html, cut = capped(html)
    page = extract_readable(html, url, markdown=markdown, comments=comments)
    wall = detect_wall(html, page.text)
    if wall == "paywall_or_cookie_wall":
        raise LightSearchError(wall, "the page shows a cookie, consent or subscription wall instead of its "
                               "content", {"url": url})
    if wall == "javascript_required":
        raise LightSearchError(wall, "the page is a JavaScript application shell with no readable text",
                               {"url": url})
    if page.kind == LISTING:
        raise LightSearchError("extraction_failed", "the page is an index of links to other pages (a home page, "
                               "a section or an archive of clips) with no main content of its own: read one of "
                               "the pages it lists", {"url": url, "reason": "no_main_content"})
    if not page.text.strip():
        raise LightSearchError("extraction_failed", "no readable text was found on the page", {"url": url})
    fields = {"title": page.title, "byline": page.byline, "language": page.language,
              "publishedAt": page.published_at, "modifiedAt": page.modified_at,
              "format": "markdown" if markdown else "text", "text": page.text}
    return {**fields, "incomplete": True, "notes": [cut]} if cut else fields


def read_pdf_page(body: bytes, max_pages: int, deadline_at: float | None) -> dict[str, Any]:
    """A PDF as text with ``[Page n of N]`` markers and its declared metadata."""
    from lightsearch.documents.pdf import read_pdf

    doc = read_pdf(body, max_pages=max_pages, deadline=deadline_at)
    return {"title": doc.title, "byline": doc.author, "language": doc.language,
            "publishedAt": doc.published_at, "modifiedAt": doc.modified_at, "format": "text",
            "text": doc.text, "pdfPages": doc.pages, "pdfPagesRead": doc.pages_read,
            "incomplete": doc.stopped is not None, "notes": doc.notes}


def summarise_feed(body: bytes) -> dict[str, Any]:
    """An RSS/Atom/JSON feed as a short readable list of its entries.

    Raises ``extraction_failed`` when no entry can be read; entries without a usable
    link are left out and counted in ``feedEntriesDropped``.
    """
    from lightsearch.documents.feeds import FeedError, read_feed

    try:
        found = read_feed(body, limit=FEED_ENTRIES)
    except FeedError as exc:
        raise LightSearchError("extraction_failed", f"the feed could not be read: {exc.message}") from None
    title = found.title
    lines = [f"# {title}", ""] if title else []
    for entry in found.entries:
        date = f" ({entry.date})" if entry.date else ""
        lines.append(f"- {entry.title or entry.link}{date}")
        lines.append(f"  {entry.link}")
        if entry.summary:
            lines.append(f"  {entry.summary}")
    if not found.entries:
        raise LightSearchError("extraction_failed", "the feed has no entries with a usable link"
                               if found.dropped else "the feed has no entries",
                               {"feedEntriesDropped": found.dropped})
    return {"title": title, "text": "\n".join(lines), "feedEntries": len(found.entries),
            "feedEntriesDropped": found.dropped}

