"""Extraction test sets beyond the shared data: built once from public repositories into a
local cache, read from there by ``benchmarks/extraction.py`` (nothing is fetched at run time).

The pages are third parties' (news sites, blogs, shops, forums), kept by these repositories
as test material; their licences cover the annotations and code, not the pages, so the
pages are never committed here. Build the cache from a copy of each repository (a clone or
a bare mirror; the commit used is recorded in the manifest):

    git clone https://github.com/adbar/trafilatura            # Apache-2.0 (annotations)
    git clone https://github.com/mozilla/readability          # Apache-2.0 (expected output)
    git clone https://github.com/leogao2/htmltotext-benchmark  # no licence stated: local use only
    python benchmarks/extraction_sets.py --trafilatura trafilatura --readability readability \\
        --htmltotext htmltotext-benchmark

Sets (``--cache``, default ``$XDG_CACHE_HOME/lightsearch/extraction-sets``):

* ``trafilatura-eval``: trafilatura's multilingual evaluation (990 pages: German, English,
  Spanish, French, Polish, ...; news, blogs, shops, forums, government pages), each with up
  to six segments that must appear and six boilerplate segments that must not. Scored as
  upstream scores it: segment precision/recall/F1 over the whole set.
* ``readability-pages``: Mozilla Readability's test pages from real sites (Czech,
  Portuguese, Chinese, Japanese, Spanish, French, German, English), with Readability.js's
  expected article as the ground truth (a reader's output, not a human's: biased towards
  Readability's choices, e.g. image captions).
* ``htmltotext``: hand-made extractions of German, Croatian, Chinese and English news,
  blogs, wikis and forum threads (the annotators kept forum posts and their usernames).

The full-text sets are scored by word F1 and, like the segment set, by sentences: every
sentence of the ground truth must appear, and every sentence of the page's visible text
that the ground truth does not hold must not (at most ``MAX_SENTENCES`` of each per page,
spread over the page, so a long page does not outweigh the rest).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

CACHE = Path(os.environ.get("LIGHTSEARCH_EXTRACTION_SETS")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lightsearch" / "extraction-sets")
MAX_SENTENCES = 12
MIN_SENTENCE_CHARS = 25
# Mozilla's pages from real sites (the rest are synthetic one-rule cases).
READABILITY_REAL = (
    "aclu", "aktualne", "archive-of-our-own", "ars-1", "bbc-1", "blogger", "breitbart", "buzzfeed-1",
    "citylab-1", "cnet", "cnn", "daringfireball-1", "dev418", "dropbox-blog", "ebb-org", "ehow-1", "ehow-2",
    "engadget", "firefox-nightly-blog", "folha", "gitlab-blog", "gmw", "google-sre-book-1", "guardian-1",
    "heise", "herald-sun-1", "hukumusume", "iab-1", "ietf-1", "la-nacion", "lemonde-1", "liberation-1",
    "lifehacker-post-comment-load", "lifehacker-working", "lwn-1", "medicalnewstoday", "medium-1", "medium-2",
    "medium-3", "mercurial", "mozilla-1", "mozilla-2", "msn", "nytimes-1", "nytimes-2", "nytimes-3",
    "nytimes-4", "nytimes-5", "pixnet", "qq", "quanta-1", "royal-road", "salon-1", "seattletimes-1",
    "simplyfound-1", "spiceworks", "telegraph", "theverge", "tmz-1", "topicseed-1", "tumblr", "v8-blog",
    "videos-1", "videos-2", "wapo-1", "wapo-2", "webmd-1", "webmd-2", "wikia", "wikipedia", "wikipedia-2",
    "wikipedia-3", "wikipedia-4", "wordpress", "yahoo-1", "yahoo-2", "yahoo-3", "yahoo-4", "youth",
)


# ------------------------------------------------------------------- reading a repository
class Repo:
    """Files of a git repository (a clone or a bare mirror) at HEAD, read through git."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.commit = self._git("rev-parse", "HEAD").decode().strip()

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", "-C", str(self.path), *args], check=True, capture_output=True).stdout

    def files(self, under: str) -> list[str]:
        out = self._git("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", under)
        return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]

    def read(self, path: str) -> bytes:
        return self._git("show", f"HEAD:{path}")


# ------------------------------------------------------------------- sentences
_SPACES = re.compile(r"\s+")
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"), None)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)|(?<=[。！？])")


def norm(text: str) -> str:
    """The form every comparison uses: NFKC, no soft hyphens or zero-width marks, single spaces."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).translate(_INVISIBLE)).strip()


def sentences(text: str) -> list[str]:
    """Sentences of ``text`` long enough to identify their place (normalised)."""
    out = []
    for line in text.splitlines():
        for piece in _SENTENCE_END.split(norm(line)):
            piece = piece.strip()
            if len(piece) >= MIN_SENTENCE_CHARS:
                out.append(piece)
    return out


def spread(items: list[str], limit: int) -> list[str]:
    """At most ``limit`` items, evenly over the list (first and last included)."""
    if len(items) <= limit:
        return items
    step = (len(items) - 1) / (limit - 1)
    return [items[round(i * step)] for i in range(limit)]


_VISIBLE_BLOCKS = ("p", "li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
                   "figcaption", "caption", "pre", "a", "button", "label", "span", "div", "section", "article",
                   "aside", "header", "footer", "nav", "form", "small", "strong", "em", "b", "i", "time")


def page_sentences(html: str) -> list[str]:
    """Sentences of the page as a browser would show its body's text, each text run read
    within its nearest block (so a menu item or a caption is a sentence of its own)."""
    from lxml import etree
    from lxml.html import document_fromstring

    try:
        tree = document_fromstring(html)
    except (etree.ParserError, ValueError):
        return []
    for bad in tree.xpath("//script | //style | //noscript | //template | //head"):
        bad.drop_tree()
    runs: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    def walk(el) -> None:
        block = isinstance(el.tag, str) and el.tag not in ("a", "span", "strong", "em", "b", "i", "small",
                                                           "time", "sup", "sub", "abbr", "code", "font", "u")
        if block:
            flush()
        if isinstance(el.tag, str) and el.text:
            current.append(el.text)
        for child in el:
            walk(child)
            if child.tail:
                current.append(child.tail)
        if block:
            flush()

    body = tree.find("body")
    if body is None:
        return []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    walk(body)
    flush()
    return [s for run in runs for s in sentences(run)]


def sentence_truth(truth: str, html: str) -> tuple[list[str], list[str]]:
    """(sentences that must appear, boilerplate sentences that must not) for a page whose
    article text is ``truth``."""
    expected = sentences(truth)
    whole = norm(truth)
    seen, boiler = set(), []
    for s in page_sentences(html):
        # a run that holds an article sentence (with a label or a link around it) is neither
        if s in whole or s in seen or any(e in s for e in expected):
            continue
        seen.add(s)
        boiler.append(s)
    return spread(list(dict.fromkeys(expected)), MAX_SENTENCES), spread(boiler, MAX_SENTENCES)


# ------------------------------------------------------------------- the sets
def _save(cache: Path, name: str, pages: dict[str, dict], source: dict) -> None:
    folder = cache / name
    (folder / "html").mkdir(parents=True, exist_ok=True)
    index = {}
    for key, page in pages.items():
        (folder / "html" / f"{key}.html.gz").write_bytes(gzip.compress(page.pop("html"), mtime=0))
        index[key] = page
    (folder / "index.json").write_text(json.dumps({"source": source, "pages": index}, ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    print(f"{name}: {len(index)} pages -> {folder}")


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _html_lang(body: bytes) -> str:
    m = re.search(rb"<html[^>]*?\blang\s*=\s*[\"']?([a-zA-Z]{2,3})", body[:20000])
    return m.group(1).decode().lower() if m else ""


def build_trafilatura(repo: Repo, cache: Path) -> None:
    data = json.loads(repo.read("tests/evaldata.json"))
    available = set(repo.files("tests/eval")) | set(repo.files("tests/cache"))
    pages = {}
    for url, item in sorted(data.items()):
        path = next((f"tests/{d}/{item['file']}" for d in ("eval", "cache")
                     if f"tests/{d}/{item['file']}" in available), None)
        if path is None:
            continue
        body = repo.read(path)
        # half the pages to tune on, half to check on (by a hash of the URL, fixed)
        split = "dev" if int(_key(url), 16) % 2 == 0 else "check"
        pages[_key(url)] = {"url": url, "with": item["with"], "without": item["without"],
                            "lang": _html_lang(body), "split": split, "html": body}
    _save(cache, "trafilatura-eval", pages, {
        "repository": "https://github.com/adbar/trafilatura", "commit": repo.commit,
        "paths": "tests/evaldata.json, tests/eval/, tests/cache/",
        "licence": "Apache-2.0 (annotations); pages are third parties', local test use only"})


def build_readability(repo: Repo, cache: Path) -> None:
    from lxml.html import fromstring

    pages = {}
    for name in READABILITY_REAL:
        base = f"test/test-pages/{name}"
        try:
            source, expected = repo.read(f"{base}/source.html"), repo.read(f"{base}/expected.html")
        except subprocess.CalledProcessError:
            continue
        meta = json.loads(repo.read(f"{base}/expected-metadata.json"))
        truth = _block_text(fromstring(expected.decode("utf-8")))
        html = source.decode("utf-8", "replace")
        want, boiler = sentence_truth(truth, html)
        pages[name] = {"url": f"https://{name}.example/", "text": truth, "with": want, "without": boiler,
                       "lang": (meta.get("lang") or _html_lang(source) or "").split("-")[0].lower(),
                       "title": meta.get("title"), "html": source}
    _save(cache, "readability-pages", pages, {
        "repository": "https://github.com/mozilla/readability", "commit": repo.commit,
        "paths": "test/test-pages/<name>/{source.html,expected.html,expected-metadata.json}",
        "licence": "Apache-2.0 (expected output); pages are third parties', local test use only"})


def _block_text(el) -> str:
    """An expected-article fragment as text with a line per block."""
    from lxml import etree

    for br in el.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for block in el.iter("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "blockquote",
                         "figcaption", "dd", "dt", "table", "section", "ul", "ol"):
        block.tail = "\n" + (block.tail or "")
        if block.text is not None or len(block):
            block.text = "\n" + (block.text or "")
    text = etree.tostring(el, method="text", encoding="unicode")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def build_htmltotext(repo: Repo, cache: Path) -> None:
    pages = {}
    for path in repo.files("benchmarkdata"):
        parts = path.split("/")
        if len(parts) != 4 or parts[2] != "html" or not parts[3].endswith(".html"):
            continue
        lang, stem = parts[1], parts[3][: -len(".html")]
        try:
            truth = repo.read(f"benchmarkdata/{lang}/text/{stem}.txt").decode("utf-8")
        except subprocess.CalledProcessError:
            continue
        source = repo.read(path)
        from w3lib.encoding import html_to_unicode

        want, boiler = sentence_truth(truth, html_to_unicode(None, source)[1])
        pages[f"{lang}-{_key(stem)}"] = {"url": f"https://{stem.split('-')[1]}.example/{stem}", "text": truth,
                                         "with": want, "without": boiler, "lang": lang,
                                         "kind": stem.split("-")[0], "html": source}
    _save(cache, "htmltotext", pages, {
        "repository": "https://github.com/leogao2/htmltotext-benchmark", "commit": repo.commit,
        "paths": "benchmarkdata/<lang>/{html,text}/",
        "licence": "none stated: pages and extractions are for local test use only"})


def load(name: str, cache: Path = CACHE) -> tuple[dict[str, bytes], dict[str, dict]] | None:
    """(pages, annotations) of a built set, or None when it was not built."""
    index = cache / name / "index.json"
    if not index.is_file():
        return None
    meta = json.loads(index.read_text(encoding="utf-8"))["pages"]
    pages = {k: gzip.decompress((cache / name / "html" / f"{k}.html.gz").read_bytes()) for k in meta}
    return pages, meta


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trafilatura", type=Path, help="a copy of github.com/adbar/trafilatura")
    parser.add_argument("--readability", type=Path, help="a copy of github.com/mozilla/readability")
    parser.add_argument("--htmltotext", type=Path, help="a copy of github.com/leogao2/htmltotext-benchmark")
    parser.add_argument("--cache", type=Path, default=CACHE)
    args = parser.parse_args()
    if args.trafilatura:
        build_trafilatura(Repo(args.trafilatura), args.cache)
    if args.readability:
        build_readability(Repo(args.readability), args.cache)
    if args.htmltotext:
        build_htmltotext(Repo(args.htmltotext), args.cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
