"""Load and validate the versioned source catalog.

The catalog is data (``catalog/sources.json``); this module is its schema. Validation
errors name the source and the field, because a catalog is edited by hand and a crawl
over a half-valid catalog would fail far from the typo.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lightsearch.cache.memo import URL_CHARS, short_memo
from lightsearch.errors import LightSearchError

KINDS = ("reference", "government", "news", "science", "technology")
LANGUAGES = ("en", "he")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,40}$")
DEFAULT_CATALOG = Path(str(files("lightsearch.catalog") / "sources.json"))


class CatalogError(LightSearchError):
    def __init__(self, message: str, **details: Any) -> None:
        super().__init__("invalid_catalog", message, details)


@dataclass(frozen=True)
class Source:
    id: str
    name: str
    language: str
    kind: str
    origins: tuple[str, ...]
    seeds: tuple[str, ...]
    feeds: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    lookup: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    #: A site on the user's own machine or network, added with ``--allow-private``: the
    #: transport guard lets a crawl given this source reach its origins' private addresses
    #: and ports (crawl/guard/private.py). Only a user catalog's sources may say so.
    allow_private: bool = False

    def admits(self, url: str) -> bool:
        """True when ``url`` is on one of this source's admitted origins."""
        return origin_of(url) in self.origins


@dataclass(frozen=True)
class Catalog:
    id: str
    version: str
    sources: tuple[Source, ...]
    corpus_id: str = ""
    path: str = ""
    by_id: dict[str, Source] = field(default_factory=dict, compare=False, repr=False)
    extra_path: str = ""  # the user catalog that extends this one, if any

    @property
    def private_origins(self) -> frozenset[str]:
        """The origins of the sources a user added with ``--allow-private``."""
        return frozenset(o for s in self.sources if s.allow_private for o in s.origins)

    def source_for(self, url: str) -> Source | None:
        origin = origin_of(url)
        for source in self.sources:
            if origin in source.origins:
                return source
        return None


@short_memo(65536, URL_CHARS)
def origin_of(url: str) -> str:
    """``scheme://host[:port]``; an empty string, which no source admits, for a URL whose
    host or port cannot be read (such URLs reach here from robots.txt, sitemaps, links).
    Remembered: every search asks it of the same cached sites' links."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return ""
    default = {"http": 80, "https": 443}.get(parts.scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{parts.scheme}://{netloc}"


def _fail(message: str, source: str | None, field_name: str | None, **extra: Any) -> None:
    where = f"source {source!r}, field {field_name!r}" if source else f"field {field_name!r}"
    raise CatalogError(f"catalog {where}: {message}", source=source, field=field_name, **extra)


def _str_list(raw: dict[str, Any], key: str, sid: str, *, required: bool = False) -> tuple[str, ...]:
    value = raw.get(key, [])
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        _fail("must be a list of non-empty strings", sid, key)
    if required and not value:
        _fail("must not be empty", sid, key)
    return tuple(v.strip() for v in value)


def _check_urls(urls: tuple[str, ...], origins: tuple[str, ...], sid: str, key: str) -> None:
    for url in urls:
        parts = urlsplit(url.replace("{title}", "x"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            _fail(f"{url!r} is not an absolute http(s) URL", sid, key)
        if origin_of(url.replace("{title}", "x")) not in origins:
            _fail(f"{url!r} is not on an admitted origin", sid, key, origins=list(origins))


def parse_source(raw: Any, index: int, *, user: bool = False) -> Source:
    """One source of a catalog; ``user``: of a user catalog, whose sources alone may be
    on a private address (``allowPrivate``)."""
    if not isinstance(raw, dict):
        _fail("each source must be an object", None, f"sources[{index}]")
    sid = raw.get("id")
    if not isinstance(sid, str) or not _ID.match(sid):
        _fail(f"id must match {_ID.pattern}", str(sid) if sid else f"#{index}", "id")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        _fail("must be a non-empty string", sid, "name")
    if raw.get("language") not in LANGUAGES:
        _fail(f"must be one of {LANGUAGES}", sid, "language", got=raw.get("language"))
    if raw.get("kind") not in KINDS:
        _fail(f"must be one of {KINDS}", sid, "kind", got=raw.get("kind"))
    origins = _str_list(raw, "origins", sid, required=True)
    for origin in origins:
        if origin_of(origin) != origin:
            _fail(f"{origin!r} must be scheme://host[:port] with no path", sid, "origins")
    seeds = _str_list(raw, "seeds", sid, required=True)
    feeds = _str_list(raw, "feeds", sid)
    sitemaps = _str_list(raw, "sitemaps", sid)
    lookup = _str_list(raw, "lookup", sid)
    for key, urls in (("seeds", seeds), ("feeds", feeds), ("sitemaps", sitemaps), ("lookup", lookup)):
        _check_urls(urls, origins, sid, key)
    if any("{title}" not in u for u in lookup):
        _fail("every lookup template needs a {title} placeholder", sid, "lookup")
    topics = tuple(t.lower() for t in _str_list(raw, "topics", sid))
    allow_private = raw.get("allowPrivate", False)
    if not isinstance(allow_private, bool):
        _fail("must be true or false", sid, "allowPrivate")
    if allow_private and not user:
        _fail("only your own sources, in the user catalog (`lightsearch sources add --allow-private`), may be "
              "on a private address", sid, "allowPrivate")
    return Source(
        id=sid, name=name.strip(), language=raw["language"], kind=raw["kind"],
        origins=origins, seeds=seeds, feeds=feeds, sitemaps=sitemaps, lookup=lookup,
        topics=topics, allow_private=allow_private,
    )


def parse_catalog(data: Any, path: str = "", *, allow_empty: bool = False, user: bool = False) -> Catalog:
    if not isinstance(data, dict):
        _fail("the catalog must be a JSON object", None, "(root)")
    for key in ("id", "version"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            _fail("must be a non-empty string", None, key)
    raw_sources = data.get("sources")
    if not isinstance(raw_sources, list) or not (raw_sources or allow_empty):
        _fail("must be a non-empty list", None, "sources")
    sources = tuple(parse_source(raw, i, user=user) for i, raw in enumerate(raw_sources))
    seen: set[str] = set()
    for s in sources:
        if s.id in seen:
            _fail("duplicate id", s.id, "id")
        seen.add(s.id)
    digest = hashlib.sha256(
        json.dumps(raw_sources, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()[:12]
    corpus_id = f"{data['id']}@{data['version']}#{digest}"
    return Catalog(
        id=data["id"], version=data["version"], sources=sources, corpus_id=corpus_id,
        path=path, by_id={s.id: s for s in sources},
    )


_CACHE: dict[tuple[str, float, bool, bool], Catalog] = {}


def load_catalog(path: str | Path | None = None, *, allow_empty: bool = False, user: bool = False) -> Catalog:
    """Load (and memoise by path and mtime) a catalog file; the bundled one by default.
    ``user``: a user catalog (its sources may be private sites, ``allowPrivate``)."""
    p = Path(path) if path else DEFAULT_CATALOG
    try:
        key = (str(p.resolve()), p.stat().st_mtime, allow_empty, user)
    except OSError as exc:
        raise CatalogError(f"catalog file {str(p)!r} cannot be read: {exc}", path=str(p)) from None
    if key not in _CACHE:
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CatalogError(f"catalog file {str(p)!r} is not valid JSON: {exc}", path=str(p)) from None
        _CACHE[key] = parse_catalog(data, str(p), allow_empty=allow_empty, user=user)
    return _CACHE[key]


def extend_catalog(base: Catalog, extra_path: str | Path) -> Catalog:
    """``base`` with the sources of a user catalog after its own. The result has a corpus
    id of its own ("source overrides receive a distinct corpus identifier"), so
    nothing keyed by the bundled catalog's is mistaken for it. A user source may not reuse
    a catalog source's id."""
    extra = load_catalog(extra_path, allow_empty=True, user=True)
    clash = sorted(set(base.by_id) & set(extra.by_id))
    if clash:
        _fail(f"id {clash[0]!r} is already a source of catalog {base.id!r}", clash[0], "id", path=str(extra_path))
    sources = base.sources + extra.sources
    return Catalog(id=base.id, version=base.version, sources=sources,
                   corpus_id=f"{base.corpus_id}+{extra.id}@{extra.version}#{extra.corpus_id.rsplit('#', 1)[-1]}",
                   path=base.path, by_id={s.id: s for s in sources}, extra_path=str(extra_path))
