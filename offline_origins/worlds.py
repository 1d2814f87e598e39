"""Benchmark worlds: judged test collections rendered as small web sites.

A world turns a relevance test collection from the shared data folder into fixture sites
for :class:`lightsearch.offline_origins.server.OfflineOrigins` plus a catalog, a query set and graded
judgements keyed by article URL, so a search over the catalog can be scored against the
collection's qrels, and against an oracle that ranks every document of the world.

Each site looks like a real archive: ``robots.txt`` naming a sitemap index, child
sitemaps of at most 100 article URLs with ``<lastmod>``, an RSS 2.0 feed of the 20 latest
articles, a home page linking the 10 latest and the archive, paginated archive pages (50
titles a page, prev/next) and one HTML page per document with header, breadcrumb,
related links and footer around the text. Article slugs carry the title's first words.

Nothing of the recorded data lives in the repository: the worlds are generated at run
time into a directory the caller gives (usually a temporary one). The data folder is an
argument, else ``$LIGHTSEARCH_SHARED_DATA``, else ``<repo>/../shared/data``.

- ``cranfield``: Cranfield 1400 (``ir-cranfield/``), 4 English "journal archive" sites of
  350 papers each (by document number), kind ``science``. Query ids are the 1-based
  POSITION of the query in ``cran.qry`` (that is what ``cranqrel`` uses, not the ``.I``
  numbers); relevance codes 1-4 become gains ``5 - code`` (1 = complete answer -> 4), the
  code -1 lines (one per query, the paper the question came from) are left out, as in the
  collection's SOURCE.md reference figures.
- ``heq``: the HeQ retrieval split (``hebrew-qa/heq-retrieval/``), 477 Hebrew paragraphs
  served by a reference site (``source == "Wikipedia"``) and a technology-news site
  (``source == "Geektime"``), 1058 queries with one relevant paragraph each (gain 1).

A :class:`Shape` lays the same collection out as sites of another size and structure
(``SHAPES``: small sites with one sitemap and no index, large ones with twelve child
sitemaps and deep listings, half the articles served with their title only, shallow
listings of 200 titles, feeds of 10 or 100 items), so reach is measured across shapes and
not on one; the judgements and the oracle follow the shape (a title-only article is
indexed by the oracle as its title).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lightsearch.ranking.tokenize import ENGLISH_STOP, HEBREW_STOP, tokenize

REPO = Path(__file__).resolve().parent.parent
CATALOG_VERSION = "1.0.0"
SITEMAP_CHUNK = 100
HOME_LATEST = 10
RELATED = 3
SENTENCES_PER_PARAGRAPH = 3
SLUG_WORDS = 8
TOPICS = 50
_MARKER = ".lightsearch-world"


@dataclass(frozen=True)
class Shape:
    """How a collection is laid out as sites. ``None`` keeps the collection's own layout:
    Cranfield's four journals of 350 papers, HeQ's two sites by source, one child sitemap
    per 100 articles."""

    name: str = "default"
    articles_per_site: int | None = None  # a larger site is split into several
    sitemaps: int | None = None  # child sitemaps a site; 1: one sitemap robots.txt names, no index
    listing_page: int = 50  # titles a listing page (10: deep archives, 200: shallow ones)
    feed_items: int = 20
    title_only: float = 0.0  # share of articles served with their title only, no text

    def __post_init__(self) -> None:
        if self.articles_per_site is not None and self.articles_per_site < 1:
            raise ValueError("articles_per_site must be at least 1")
        if self.sitemaps is not None and not 1 <= self.sitemaps <= 1000:
            raise ValueError("sitemaps must be between 1 and 1000")
        if self.listing_page < 1 or self.feed_items < 1 or not 0.0 <= self.title_only <= 1.0:
            raise ValueError("listing_page and feed_items must be at least 1, title_only in 0..1")


# The shapes a benchmark measures reach across (``scrapy evaluate --shape NAME``).
SHAPES = {
    "default": Shape(),
    "small": Shape("small", articles_per_site=100, sitemaps=1, listing_page=50, feed_items=10),
    "large": Shape("large", articles_per_site=1000, sitemaps=12, listing_page=10, feed_items=100),
    "titles": Shape("titles", articles_per_site=700, sitemaps=9, listing_page=50, feed_items=20, title_only=0.5),
    "shallow": Shape("shallow", articles_per_site=467, sitemaps=2, listing_page=200, feed_items=100),
    "deep": Shape("deep", articles_per_site=350, sitemaps=12, listing_page=10, feed_items=10),
}


def shape_named(name: str | Shape | None) -> Shape:
    if isinstance(name, Shape):
        return name
    if name is None:
        return SHAPES["default"]
    if name not in SHAPES:
        raise ValueError(f"unknown world shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


@dataclass
class World:
    name: str  # "cranfield" | "heq"
    sites_dir: Path  # pass to OfflineOrigins(sites_dir=...)
    catalog_path: Path  # catalog JSON (schema of catalog/sources.json) of the world's sources
    queries: list[dict[str, Any]]  # [{"id", "query", "language"}], ids as in qrels
    qrels: dict[str, dict[str, int]]  # query id -> {article URL: graded relevance > 0}
    documents: dict[str, dict[str, str]]  # article URL -> {"title", "text"} (the oracle's index)
    hosts: list[str]
    home_pages: list[str]  # seed URLs
    feed_urls: list[str]
    sitemap_urls: list[str] = field(default_factory=list)
    shape: Shape = field(default_factory=Shape)


def default_data_dir() -> Path:
    env = os.environ.get("LIGHTSEARCH_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


def _collection_dir(data_dir: Path | str | None, *parts: str, marker: str) -> Path:
    """The collection folder: ``data_dir/<parts>``, or ``data_dir`` itself if it is one."""
    base = Path(data_dir) if data_dir is not None else default_data_dir()
    for candidate in (base.joinpath(*parts), base):
        if (candidate / marker).is_file():
            return candidate
    raise FileNotFoundError(
        f"{'/'.join(parts)}/{marker} not found under {base} "
        "(pass data_dir or set LIGHTSEARCH_SHARED_DATA)"
    )


# --------------------------------------------------------------------------- text helpers
_SPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_QUOTES = re.compile("[\"'`\u05f3\u05f4\u2018\u2019\u201c\u201d]")
_SLUG_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HEBREW = re.compile("[\u05d0-\u05ea]")

# Words too common in titles to say what a source is about (beyond the tokenizer's lists).
_TOPIC_STOP_EN = frozenset(
    ["about", "above", "after", "along", "also", "among", "any", "approximate", "approximately", "based", "between", "both", "can", "certain", "considering", "due", "each", "from", "general", "has", "have", "how", "its", "new", "non", "note", "notes", "other", "over", "part", "problem", "problems", "some", "study", "studies", "theory", "through", "two", "under", "upon", "using", "use", "various", "very", "what", "when", "where", "which", "while", "within", "without"]
)
_TOPIC_STOP_HE = frozenset(
    ["אבל", "או", "אז", "אחד", "אחת", "אחרי", "איזה", "איך", "אם", "אתם", "בלי", "הכי", "הזה", "הזאת", "היום", "יותר", "כבר", "כך", "כמה", "לכם", "לנו", "לפני", "מול", "מתי", "עד", "עכשיו", "ממש", "שלא", "שלכם", "שלנו", "שלך", "להם", "מאחורי"]
)


def _tidy(text: str) -> str:
    """Collapse whitespace and the SMART files' spaces before punctuation."""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACE.sub(" ", text)).strip()


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def _paragraphs(text: str, *, capitalise: bool = False) -> list[str]:
    sents = _sentences(text)
    if capitalise:
        sents = [_capital(s) for s in sents]
    step = SENTENCES_PER_PARAGRAPH
    return [" ".join(sents[i : i + step]) for i in range(0, len(sents), step)]


def slugify(title: str, words: int = SLUG_WORDS) -> str:
    """The title's first ``words`` words, lowercased and joined by hyphens (any script)."""
    parts = _SLUG_WORD.findall(_QUOTES.sub("", title).lower())
    return "-".join(parts[:words]) or "untitled"


def _authors(raw: str) -> str:
    """``brenckman,m.`` -> ``Brenckman, M.`` (the SMART files are all lowercase)."""
    text = re.sub(r",(?=\S)", ", ", _tidy(raw))
    text = re.sub(r"\b([a-z])", lambda m: m.group(1).upper(), text)
    return re.sub(r"\b(And|Of|The|De|Von|Van)\b", lambda m: m.group(1).lower(), text)


def _summary(text: str, limit: int = 200) -> str:
    sents = _sentences(text)
    first = sents[0] if sents else text
    if len(first) > limit:
        first = first[: limit - 1].rsplit(" ", 1)[0] + "…"
    return first


def _e(text: str) -> str:
    """Escape for HTML/XML text and double-quoted attributes."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def top_title_words(titles: Iterable[str], *, language: str, limit: int = TOPICS) -> list[str]:
    """The ``limit`` title words found in most titles, grouped by index term.

    Words are counted once per title and grouped by the project's tokenizer (so ``flow``
    and ``flows`` share a slot); each group is named by its most frequent surface form.
    """
    doc_freq: Counter[str] = Counter()
    surface: dict[str, Counter[str]] = {}
    order: dict[str, int] = {}
    stop = (ENGLISH_STOP | _TOPIC_STOP_EN) if language == "en" else (HEBREW_STOP | _TOPIC_STOP_HE)
    for title in titles:
        seen: set[str] = set()
        for word in _SLUG_WORD.findall(_QUOTES.sub("", title).lower()):
            if word in stop or word.isdigit() or len(word) < 3:
                continue
            if language == "he" and not _HEBREW.search(word):
                continue
            if language == "en" and not word.isascii():
                continue
            terms = tokenize(word)
            if len(terms) != 1:
                continue
            term = terms[0]
            surface.setdefault(term, Counter())[word] += 1
            order.setdefault(term, len(order))
            if term not in seen:
                seen.add(term)
                doc_freq[term] += 1
    ranked = sorted(doc_freq, key=lambda t: (-doc_freq[t], order[t]))[:limit]
    return [surface[t].most_common(1)[0][0] for t in ranked]


# --------------------------------------------------------------------------- site model
@dataclass
class _Article:
    number: int
    path: str  # decoded (Unicode) path: the route key
    title: str
    paragraphs: list[str]
    date: dt.date
    byline: str = ""
    biblio: str = ""

    @property
    def description(self) -> str:
        return _summary(self.paragraphs[0]) if self.paragraphs else self.title

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


@dataclass
class _Site:
    host: str
    source_id: str
    name: str
    tagline: str
    kind: str
    language: str
    section: str  # URL folder of articles and archive pages: "papers", "wiki", "news"
    labels: dict[str, str]
    articles: list[_Article] = field(default_factory=list)  # oldest first
    topics: list[str] = field(default_factory=list)
    shape: Shape = field(default_factory=Shape)

    @property
    def origin(self) -> str:
        return f"https://{self.host}"

    def url(self, path: str) -> str:
        return self.origin + quote(path, safe="/-")

    @property
    def home(self) -> str:
        return self.origin + "/"

    @property
    def feed(self) -> str:
        return self.origin + "/feed.xml"

    @property
    def single_sitemap(self) -> bool:
        return self.shape.sitemaps == 1

    @property
    def sitemap(self) -> str:
        """What robots.txt and the catalog name: the index, or the one sitemap."""
        return self.origin + ("/sitemap.xml" if self.single_sitemap else "/sitemap-index.xml")

    def listing_path(self, page: int) -> str:
        return f"/{self.section}/page/{page}"


_EN = {
    "home": "Home", "archive": "Archive", "about": "About", "feed": "RSS feed",
    "latest": "Latest papers", "browse": "Browse the archive", "body": "Abstract",
    "related": "Related papers", "newer": "« Newer", "older": "Older »",
    "page": "Page {page} of {pages}", "published": "Published", "skip": "Skip to content",
    "empty": "No abstract is available for this paper.", "crumb": "Papers",
    "rights": "© {year} {name}. Archive records are reproduced for research use.",
    "about_text": "{name} keeps the bibliographic records and abstracts of papers in "
                  "aeronautics, aerodynamics and structures. Browse the archive by date, "
                  "subscribe to the feed or use the sitemap.",
    "contact": "Contact the editors", "privacy": "Privacy", "sitemap": "Sitemap",
    "date_fmt": "%d %B %Y",
}

_HE_COMMON = {
    "home": "דף הבית", "archive": "ארכיון", "about": "אודות", "feed": "פיד RSS",
    "newer": "« חדשים יותר", "older": "ישנים יותר »", "page": "עמוד {page} מתוך {pages}",
    "published": "פורסם", "skip": "דלגו לתוכן", "empty": "אין תוכן זמין.",
    "contact": "צרו קשר", "privacy": "מדיניות פרטיות", "sitemap": "מפת האתר",
    "date_fmt": "%d.%m.%Y",
}
_HE_WIKI = {
    **_HE_COMMON, "latest": "ערכים שעודכנו לאחרונה", "browse": "לכל הערכים",
    "body": "מתוך הערך", "related": "ערכים קשורים", "crumb": "ערכים",
    "published": "עודכן לאחרונה",
    "rights": "© {year} {name}. התוכן זמין ברישיון חופשי.",
    "about_text": "{name} היא אנציקלופדיה מקוונת בעברית: ערכים על היסטוריה, מדע, תרבות, "
                  "גאוגרפיה ואישים. אפשר לעיין בארכיון לפי תאריך עדכון או להירשם לפיד.",
}
_HE_TECH = {
    **_HE_COMMON, "latest": "הכתבות האחרונות", "browse": "לכל הכתבות",
    "body": "", "related": "כתבות נוספות", "crumb": "חדשות",
    "rights": "© {year} {name}. כל הזכויות שמורות.",
    "about_text": "{name} מסקר את עולם הטכנולוגיה, הסטארטאפים, הגאדג'טים והאפליקציות "
                  "בישראל ובעולם. הירשמו לפיד כדי לקבל את הכתבות החדשות.",
}


# --------------------------------------------------------------------------- rendering
def _head(site: _Site, title: str, description: str, canonical: str, extra: str = "") -> str:
    lang = site.language
    direction = ' dir="rtl"' if lang == "he" else ""
    full = title if title == site.name else f"{title} | {site.name}"
    return (
        f'<!doctype html>\n<html lang="{lang}"{direction}>\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(full)}</title>\n"
        f'<meta name="description" content="{_e(description)}">\n'
        f'<meta property="og:title" content="{_e(title)}">\n'
        f'<meta property="og:site_name" content="{_e(site.name)}">\n'
        f'<meta property="og:url" content="{_e(canonical)}">\n'
        f'<link rel="canonical" href="{_e(canonical)}">\n'
        f'<link rel="alternate" type="application/rss+xml" title="{_e(site.name)}" href="/feed.xml">\n'
        f'<link rel="stylesheet" href="/static/site.css">\n{extra}</head>\n'
    )


def _header(site: _Site) -> str:
    lb = site.labels
    return (
        f'<body>\n<a class="skip" href="#main">{_e(lb["skip"])}</a>\n'
        f'<header class="site-header">\n<a class="brand" href="/">{_e(site.name)}</a>\n'
        f'<p class="tagline">{_e(site.tagline)}</p>\n<nav><ul>'
        f'<li><a href="/">{_e(lb["home"])}</a></li>'
        f'<li><a href="{site.listing_path(1)}">{_e(lb["archive"])}</a></li>'
        f'<li><a href="/about">{_e(lb["about"])}</a></li>'
        f'<li><a href="/feed.xml">{_e(lb["feed"])}</a></li></ul></nav>\n</header>\n'
    )


def _footer(site: _Site) -> str:
    lb = site.labels
    rights = lb["rights"].format(year=2026, name=site.name)
    return (
        f'<footer class="site-footer">\n<p>{_e(rights)}</p>\n<ul>'
        f'<li><a href="/about">{_e(lb["about"])}</a></li>'
        f'<li><a href="/about#contact">{_e(lb["contact"])}</a></li>'
        f'<li><a href="/about#privacy">{_e(lb["privacy"])}</a></li>'
        f'<li><a href="/sitemap-index.xml">{_e(lb["sitemap"])}</a></li></ul>\n</footer>\n</body>\n</html>\n'
    )


def _date(site: _Site, day: dt.date) -> str:
    return f'<time datetime="{day.isoformat()}">{day.strftime(site.labels["date_fmt"])}</time>'


def _article_link(site: _Site, art: _Article) -> str:
    return f'<a href="{_e(quote(art.path, safe="/-"))}">{_e(art.title)}</a>'


def _render_article(site: _Site, art: _Article, index: int) -> str:
    lb = site.labels
    n = len(site.articles)
    related = [site.articles[(index + k) % n] for k in (-1, 1, 2)][:RELATED]
    body = "".join(f"<p>{_e(p)}</p>\n" for p in art.paragraphs) or f"<p>{_e(lb['empty'])}</p>\n"
    meta = ""
    if art.byline:
        meta += f'<p class="byline">{_e(art.byline)}</p>\n'
    meta += f'<p class="published">{_e(lb["published"])}: {_date(site, art.date)}</p>\n'
    if art.biblio:
        meta += f'<p class="citation">{_e(art.biblio)}</p>\n'
    links = "".join(f"<li>{_article_link(site, r)}</li>" for r in related)
    heading = f"<h2>{_e(lb['body'])}</h2>\n" if lb["body"] else ""
    head = _head(site, art.title, art.description, site.url(art.path),
                 f'<meta property="og:type" content="article">\n'
                 f'<meta property="article:published_time" content="{art.date.isoformat()}">\n')
    return (
        head + _header(site)
        + '<nav class="breadcrumb" aria-label="breadcrumb"><ol>'
        f'<li><a href="/">{_e(lb["home"])}</a></li>'
        f'<li><a href="{site.listing_path(1)}">{_e(lb["crumb"])}</a></li>'
        f"<li>{_e(art.title)}</li></ol></nav>\n"
        f'<main id="main">\n<article>\n<h1>{_e(art.title)}</h1>\n{meta}'
        f'<section class="abstract">\n{heading}{body}</section>\n</article>\n'
        f'<aside class="related">\n<h2>{_e(lb["related"])}</h2>\n<ul>{links}</ul>\n</aside>\n'
        "</main>\n" + _footer(site)
    )


def _listing_items(site: _Site, arts: Sequence[_Article]) -> str:
    items = []
    for art in arts:
        extra = f' <span class="byline">{_e(art.byline)}</span>' if art.byline else ""
        items.append(f"<li>{_article_link(site, art)} {_date(site, art.date)}{extra}</li>")
    return "<ul class=\"listing\">\n" + "\n".join(items) + "\n</ul>\n"


def _render_home(site: _Site, newest: Sequence[_Article]) -> str:
    lb = site.labels
    return (
        _head(site, site.name, site.tagline, site.home) + _header(site)
        + f'<main id="main">\n<h1>{_e(site.name)}</h1>\n<p class="intro">{_e(site.tagline)}</p>\n'
        f'<section class="latest">\n<h2>{_e(lb["latest"])}</h2>\n'
        + _listing_items(site, newest[:HOME_LATEST])
        + f'<p><a href="{site.listing_path(1)}">{_e(lb["browse"])}</a></p>\n</section>\n</main>\n'
        + _footer(site)
    )


def _render_listing(site: _Site, newest: Sequence[_Article], page: int, pages: int) -> str:
    lb = site.labels
    size = site.shape.listing_page
    chunk = newest[(page - 1) * size : page * size]
    label = lb["page"].format(page=page, pages=pages)
    rel, pager = "", []
    if page > 1:
        rel += f'<link rel="prev" href="{site.listing_path(page - 1)}">\n'
        pager.append(f'<a rel="prev" href="{site.listing_path(page - 1)}">{_e(lb["newer"])}</a>')
    pager.append(f"<span>{_e(label)}</span>")
    if page < pages:
        rel += f'<link rel="next" href="{site.listing_path(page + 1)}">\n'
        pager.append(f'<a rel="next" href="{site.listing_path(page + 1)}">{_e(lb["older"])}</a>')
    title = f"{lb['archive']} – {label}"
    return (
        _head(site, title, site.tagline, site.origin + site.listing_path(page), rel)
        + _header(site)
        + '<nav class="breadcrumb" aria-label="breadcrumb"><ol>'
        f'<li><a href="/">{_e(lb["home"])}</a></li><li>{_e(lb["archive"])}</li></ol></nav>\n'
        f'<main id="main">\n<h1>{_e(title)}</h1>\n' + _listing_items(site, chunk)
        + '<nav class="pager">' + " ".join(pager) + "</nav>\n</main>\n" + _footer(site)
    )


def _render_about(site: _Site) -> str:
    lb = site.labels
    text = lb["about_text"].format(name=site.name)
    return (
        _head(site, lb["about"], text, site.origin + "/about") + _header(site)
        + f'<main id="main">\n<h1>{_e(lb["about"])}</h1>\n<p>{_e(text)}</p>\n'
        f'<h2 id="contact">{_e(lb["contact"])}</h2>\n<p>editors@{_e(site.host)}</p>\n'
        f'<h2 id="privacy">{_e(lb["privacy"])}</h2>\n<p>—</p>\n</main>\n' + _footer(site)
    )


def _render_feed(site: _Site, newest: Sequence[_Article]) -> str:
    def when(day: dt.date) -> str:
        return format_datetime(dt.datetime(day.year, day.month, day.day, 8, 0, tzinfo=dt.timezone.utc))

    items = []
    for art in newest[: site.shape.feed_items]:
        link = site.url(art.path)
        items.append(
            f"<item>\n<title>{_e(art.title)}</title>\n<link>{_e(link)}</link>\n"
            f'<guid isPermaLink="true">{_e(link)}</guid>\n<pubDate>{when(art.date)}</pubDate>\n'
            f"<description>{_e(art.description)}</description>\n</item>"
        )
    built = when(newest[0].date) if newest else when(dt.date(2026, 1, 1))
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n'
        f"<title>{_e(site.name)}</title>\n<link>{_e(site.home)}</link>\n"
        f"<description>{_e(site.tagline)}</description>\n<language>{site.language}</language>\n"
        f'<lastBuildDate>{built}</lastBuildDate>\n'
        f'<atom:link href="{_e(site.feed)}" rel="self" type="application/rss+xml"/>\n'
        + "\n".join(items) + "\n</channel>\n</rss>\n"
    )


_SM_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _render_sitemaps(site: _Site) -> tuple[str, list[str]]:
    """The sitemap index and its children (one per ``SITEMAP_CHUNK`` articles, or the
    shape's number of them, evenly filled)."""
    children = []
    wanted = site.shape.sitemaps
    size = SITEMAP_CHUNK if wanted is None else max(1, -(-len(site.articles) // wanted))
    chunks = [site.articles[i : i + size] for i in range(0, len(site.articles), size)]
    entries = []
    for n, chunk in enumerate(chunks, 1):
        urls = "".join(
            f"<url><loc>{_e(site.url(a.path))}</loc><lastmod>{a.date.isoformat()}</lastmod></url>\n"
            for a in chunk
        )
        children.append(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{_SM_NS}">\n{urls}</urlset>\n')
        last = max(a.date for a in chunk).isoformat()
        entries.append(f"<sitemap><loc>{site.origin}/sitemaps/sitemap-{n}.xml</loc>"
                       f"<lastmod>{last}</lastmod></sitemap>\n")
    index = (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{_SM_NS}">\n'
             + "".join(entries) + "</sitemapindex>\n")
    return index, children


_CSS = """body{font-family:Georgia,serif;max-width:46rem;margin:auto;padding:1rem;line-height:1.5}
.site-header nav ul,.site-footer ul,.breadcrumb ol{list-style:none;display:flex;gap:1rem;padding:0}
.skip{position:absolute;left:-9999px}.related{border-top:1px solid #ccc;margin-top:2rem}
.byline,.published,.citation{color:#555;margin:.2rem 0}
"""
_HTML = "text/html; charset=utf-8"
_RSS = "application/rss+xml; charset=utf-8"
_XML = "application/xml; charset=utf-8"


def _write_site(sites_dir: Path, site: _Site) -> None:
    root = sites_dir / site.host
    (root / "articles").mkdir(parents=True)
    (root / "pages").mkdir()
    (root / "sitemaps").mkdir()
    routes: dict[str, dict[str, Any]] = {}

    def put(route: str, file: str, text: str, ctype: str) -> None:
        (root / file).write_text(text, encoding="utf-8")
        routes[route] = {"file": file, "type": ctype}

    newest = sorted(site.articles, key=lambda a: (a.date, a.number), reverse=True)
    put("/robots.txt", "robots.txt",
        f"User-agent: *\nAllow: /\n\nSitemap: {site.sitemap}\n", "text/plain; charset=utf-8")
    index, children = _render_sitemaps(site)
    if site.single_sitemap:
        put("/sitemap.xml", "sitemap.xml", children[0], _XML)
    else:
        put("/sitemap-index.xml", "sitemap-index.xml", index, _XML)
        for n, child in enumerate(children, 1):
            put(f"/sitemaps/sitemap-{n}.xml", f"sitemaps/sitemap-{n}.xml", child, _XML)
    put("/feed.xml", "feed.xml", _render_feed(site, newest), _RSS)
    put("/", "index.html", _render_home(site, newest), _HTML)
    put("/about", "about.html", _render_about(site), _HTML)
    put("/static/site.css", "site.css", _CSS, "text/css; charset=utf-8")
    pages = max(1, -(-len(newest) // site.shape.listing_page))
    for page in range(1, pages + 1):
        put(site.listing_path(page), f"pages/page-{page}.html",
            _render_listing(site, newest, page, pages), _HTML)
    for i, art in enumerate(site.articles):
        put(art.path, f"articles/{art.number}.html", _render_article(site, art, i), _HTML)
    manifest = {"host": site.host, "source_id": site.source_id, "routes": routes}
    (root / "site.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")


def _prepare(out_dir: Path, name: str) -> Path:
    """``out_dir/<name>``, emptied if a previous build of this world left it there."""
    base = Path(out_dir) / name
    if base.exists() and any(base.iterdir()):
        if not (base / _MARKER).is_file():
            raise FileExistsError(f"{base} exists and is not a generated world; choose another out_dir")
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    (base / _MARKER).write_text(f"generated {name} world; safe to delete\n", encoding="utf-8")
    (base / "sites").mkdir()
    return base


def _write_catalog(path: Path, world_id: str, description: str, sites: Sequence[_Site]) -> None:
    sources = [
        {
            "id": s.source_id, "name": s.name, "language": s.language, "kind": s.kind,
            "origins": [s.origin], "seeds": [s.home], "feeds": [s.feed], "sitemaps": [s.sitemap],
            "lookup": [], "topics": s.topics,
        }
        for s in sites
    ]
    data = {"id": world_id, "version": CATALOG_VERSION, "description": description, "sources": sources}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _finish(name: str, base: Path, sites: Sequence[_Site], description: str,
            queries: list[dict[str, Any]], qrels: dict[str, dict[str, int]],
            documents: dict[str, dict[str, str]], shape: Shape) -> World:
    for site in sites:
        _write_site(base / "sites", site)
    catalog_path = base / "catalog.json"
    _write_catalog(catalog_path, f"world-{name}", description, sites)
    return World(
        name=name, sites_dir=base / "sites", catalog_path=catalog_path, queries=queries,
        qrels=qrels, documents=documents, hosts=[s.host for s in sites],
        home_pages=[s.home for s in sites], feed_urls=[s.feed for s in sites],
        sitemap_urls=[s.sitemap for s in sites], shape=shape,
    )


# --------------------------------------------------------------------------- Cranfield
def parse_smart(text: str) -> list[tuple[str, dict[str, str]]]:
    """SMART records: ``[(".I" value, {"T": ..., "A": ..., "B": ..., "W": ...})]``."""
    records: list[tuple[str, dict[str, list[str]]]] = []
    key = ""
    for line in text.splitlines():
        if line.startswith(".I "):
            records.append((line[3:].strip(), {}))
            key = ""
        elif records and len(line) == 2 and line[0] == "." and line[1] in "TABW":
            key = line[1]
            records[-1][1].setdefault(key, [])
        elif records and key:
            records[-1][1][key].append(line)
    return [(rid, {k: "\n".join(v) for k, v in fields.items()}) for rid, fields in records]


# The papers are split by document number, not by subject, so the names share their words
# and say nothing a query could match: source selection must rely on the topics.
def _journal(j: int) -> tuple[str, str, str]:
    x = "abcdefghijklmnopqrstuvwxyz"[j % 26] + (str(j // 26) if j >= 26 else "")
    return (f"journal-{x}.cranfield.test", f"cranfield-journal-{x}",
            f"Aeronautical Research Papers, Series {x.upper()}")


_CRANFIELD_JOURNALS = 4


def _title_only(key: str, share: float) -> bool:
    """Whether the article ``key`` is served with its title only (a stable hash decides)."""
    if share <= 0:
        return False
    return int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < share


def build_cranfield_world(out_dir: Path, data_dir: Path | None = None,
                          shape: Shape | str | None = None) -> World:
    """Cranfield 1400 as journal archives (four of 350 papers, or as ``shape`` lays them
    out); 225 queries, graded qrels (gain 5 - code)."""
    shape = shape_named(shape)
    src = _collection_dir(data_dir, "ir-cranfield", marker="cran.all.1400")
    base = _prepare(Path(out_dir), "cranfield")
    records = parse_smart((src / "cran.all.1400").read_text(encoding="ascii", errors="replace"))
    per_site = shape.articles_per_site or -(-len(records) // _CRANFIELD_JOURNALS)
    epoch = dt.date(2020, 9, 7)
    sites: list[_Site] = []
    urls: dict[str, str] = {}  # docno -> article URL
    documents: dict[str, dict[str, str]] = {}
    for j in range(-(-len(records) // per_site)):
        host, sid, name = _journal(j)
        site = _Site(host=host, source_id=sid, name=name, tagline="", kind="science",
                     language="en", section="papers", labels=_EN, shape=shape)
        for k, (docno, fields) in enumerate(records[j * per_site : (j + 1) * per_site]):
            number = int(docno)
            title = _capital(_tidy(fields.get("T", "")).rstrip(" .")) or f"Paper {number}"
            abstract = _tidy(fields.get("W", ""))
            raw_title = _tidy(fields.get("T", ""))
            if raw_title and abstract.startswith(raw_title):  # .W repeats the title first
                abstract = abstract[len(raw_title) :].strip()
            biblio = _tidy(fields.get("B", ""))
            if _title_only(docno, shape.title_only):
                abstract = ""
            art = _Article(
                number=number, path=f"/papers/{number}-{slugify(title)}", title=title,
                paragraphs=_paragraphs(abstract, capitalise=True),
                date=epoch + dt.timedelta(days=6 * k),  # one paper every 6 days per journal
                byline=_authors(fields.get("A", "")),
                biblio=biblio,
            )
            site.articles.append(art)
            url = site.url(art.path)
            urls[docno] = url
            documents[url] = {"title": art.title, "text": art.text}
        site.topics = top_title_words((a.title for a in site.articles), language="en")
        site.tagline = (f"The journal archive: {len(site.articles)} papers with abstracts on "
                        f"{', '.join(site.topics[:4])} and more.")
        sites.append(site)

    queries: list[dict[str, Any]] = []
    for position, (_dotI, fields) in enumerate(
        parse_smart((src / "cran.qry").read_text(encoding="ascii", errors="replace")), 1
    ):
        # The qrels number queries by POSITION in cran.qry (1..225), not by their .I value.
        queries.append({"id": str(position), "query": _tidy(fields.get("W", "")), "language": "en"})
    qrels: dict[str, dict[str, int]] = {}
    for line in (src / "cranqrel").read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        qid, docno, code = parts[0], parts[1], int(parts[2])
        # Cleverdon's scale: 1 = complete answer ... 4 = minimum interest, 5 = none; -1 marks
        # the question's own source paper and is not judged relevant (SOURCE.md).
        if 1 <= code <= 4 and docno in urls:
            qrels.setdefault(qid, {})[urls[docno]] = 5 - code
    return _finish("cranfield", base, sites,
                   f"Cranfield 1400 aeronautics abstracts served as {len(sites)} journal archives.",
                   queries, qrels, documents, shape)


# --------------------------------------------------------------------------- HeQ
_HEQ_SITES = {
    "Wikipedia": ("wiki.heq.test", "heq-wiki", "ויקידע — האנציקלופדיה החופשית",
                  "ערכים אנציקלופדיים בעברית על היסטוריה, מדע, תרבות ואישים.", "reference", "wiki",
                  _HE_WIKI, "נכתב בידי תורמי ויקידע"),
    "Geektime": ("tech.heq.test", "heq-tech", "טקזון — חדשות טכנולוגיה",
                 "חדשות הייטק, סטארטאפים, גאדג'טים ואפליקציות.", "technology", "news",
                 _HE_TECH, "מאת מערכת טקזון"),
}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_heq_world(out_dir: Path, data_dir: Path | None = None,
                    max_queries: int | None = None, shape: Shape | str | None = None) -> World:
    """HeQ retrieval as a Hebrew encyclopedia and a Hebrew tech-news site (each split into
    sites of ``shape.articles_per_site`` when the shape says so); binary qrels."""
    shape = shape_named(shape)
    src = _collection_dir(data_dir, "hebrew-qa", "heq-retrieval", marker="corpus.jsonl")
    base = _prepare(Path(out_dir), "heq")
    corpus = _read_jsonl(src / "corpus.jsonl")
    epoch = dt.date(2023, 1, 2)
    sites: list[_Site] = []
    urls: dict[str, str] = {}  # corpus id -> article URL
    documents: dict[str, dict[str, str]] = {}
    for origin, (host, sid, name, tagline, kind, section, labels, byline) in _HEQ_SITES.items():
        # Publication order: a stable hash of the id, so test and validation paragraphs
        # mix on the home page, in the feed and across the archive pages.
        docs = sorted((d for d in corpus if d.get("source") == origin),
                      key=lambda d: hashlib.sha1(d["_id"].encode()).hexdigest())
        per_site = shape.articles_per_site or max(1, len(docs))
        for j in range(-(-len(docs) // per_site)):
            label = "" if j == 0 else f"-{j + 1}"
            site = _Site(host=host.replace(".", f"{label}.", 1), source_id=f"{sid}{label}",
                         name=name if j == 0 else f"{name} {j + 1}", tagline=tagline, kind=kind,
                         language="he", section=section, labels=labels, shape=shape)
            for number, doc in enumerate(docs[j * per_site : (j + 1) * per_site], 1):
                title = _tidy(html.unescape(doc.get("title", ""))) or doc["_id"]
                text = "" if _title_only(doc["_id"], shape.title_only) else _tidy(html.unescape(doc.get("text", "")))
                art = _Article(
                    number=number, path=f"/{section}/{number}-{slugify(title)}", title=title,
                    paragraphs=_paragraphs(text), date=epoch + dt.timedelta(days=3 * (number - 1)),
                    byline=byline,
                )
                site.articles.append(art)
                url = site.url(art.path)
                urls[doc["_id"]] = url
                documents[url] = {"title": art.title, "text": art.text}
            site.topics = top_title_words((a.title for a in site.articles), language="he")
            sites.append(site)
    unknown = [d["_id"] for d in corpus if d["_id"] not in urls]
    if unknown:
        raise ValueError(f"HeQ documents with an unknown source: {unknown[:5]}")

    raw_queries = _read_jsonl(src / "queries.jsonl")
    if max_queries is not None:
        raw_queries = raw_queries[:max_queries]
    queries = [{"id": q["_id"], "query": _tidy(q["text"]), "language": "he"} for q in raw_queries]
    wanted = {q["id"] for q in queries}
    qrels: dict[str, dict[str, int]] = {}
    for n, line in enumerate((src / "qrels.tsv").read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if (n == 0 and parts[0] == "query-id") or len(parts) < 3:
            continue
        qid, cid, score = parts[0], parts[1], int(parts[2])
        if qid in wanted and score > 0 and cid in urls:
            qrels.setdefault(qid, {})[urls[cid]] = score
    return _finish("heq", base, sites,
                   f"HeQ Hebrew paragraphs served as {len(sites)} sites: encyclopedias and tech news.",
                   queries, qrels, documents, shape)


# --------------------------------------------------------------------------- files
def write_queries_jsonl(world: World, path: Path | str) -> Path:
    """The query set as JSONL (``lightsearch.evaluation.qrels.read_queries`` reads it)."""
    path = Path(path)
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in world.queries),
                    encoding="utf-8")
    return path


def write_qrels_trec(world: World, path: Path | str) -> Path:
    """TREC qrels, ``qid 0 docurl grade`` per line (URLs are percent-encoded, no spaces)."""
    path = Path(path)
    lines = [f"{qid} 0 {url} {grade}\n" for qid, docs in world.qrels.items() for url, grade in docs.items()]
    path.write_text("".join(lines), encoding="utf-8")
    return path
