"""A source's discovery pages: its home, entry, hub and listing pages. A search reads them
for the pages they name; they are never evidence themselves.

A home or section page's text is other pages' titles and teasers. Ranked beside the
articles, it would answer a query with the page that links to the answer; kept in the
record cache, it would do so for the process's later searches too, so that what a search
returns would depend on what the process searched before. Which pages they are is known
from three places:

* the catalog: a source's seeds (its home and entry pages) and the root page of each of
  its origins;
* the source's descriptions (the summary file and what this process's searches read):
  the documents read as home, hub or listing pages;
* the crawl: the pages a seed page's navigation names, the site's sections (discovery
  explores them as hubs by the same rule), added as the seed pages are read.

:meth:`DiscoveryPages.covers` is asked where a page would become a document (the spider)
and where documents become a search's evidence (``providers/light.py``: the pages this
crawl fetched and the fresh records of earlier searches alike).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from lightsearch.documents.urlkey import canonical_url

if TYPE_CHECKING:
    from lightsearch.cache.descriptions import DocumentDescription
    from lightsearch.plan.catalog import Source

# The kinds of described document that are pages (the others are feeds and sitemaps).
PAGE_KINDS = frozenset(["seed", "listing"])


def _key(url: str) -> str | None:
    try:
        return canonical_url(url)
    except ValueError:  # a URL w3lib cannot read names no page of ours
        return None


def entry_pages(source: Source) -> set[str]:
    """The canonical URLs of a source's seeds and of each of its origins' root page."""
    keys = (_key(url) for url in (*source.seeds, *(origin + "/" for origin in source.origins)))
    return {key for key in keys if key is not None}


class DiscoveryPages:
    """The discovery pages of a catalog's sources, as far as a search knows them."""

    def __init__(self, sources: Iterable[Source],
                 described: Mapping[str, Iterable[DocumentDescription]] | None = None) -> None:
        described = described or {}
        self._entries: dict[str, set[str]] = {}
        self._pages: dict[str, set[str]] = {}
        for source in sources:
            self._entries[source.id] = entry_pages(source)
            self._pages[source.id] = {doc.key for doc in described.get(source.id, ()) if doc.kind in PAGE_KINDS}

    def add(self, source_id: str, urls: Iterable[str]) -> None:
        """Pages the crawl found to be the source's sections (a seed page's navigation)."""
        pages = self._pages.setdefault(source_id, set())
        pages.update(key for key in map(_key, urls) if key is not None)

    def entry(self, source_id: str, url: str) -> bool:
        """Whether ``url`` is one of the source's home and entry pages (the catalog's)."""
        return _key(url) in self._entries.get(source_id, ())

    def covers(self, source_id: str, url: str) -> bool:
        """Whether ``url`` is one of the discovery pages of the source ``source_id``."""
        key = _key(url)
        return key in self._entries.get(source_id, ()) or key in self._pages.get(source_id, ())
