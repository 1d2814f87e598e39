"""The one table of lightsearch's own settings: key, type, default, allowed range, doc.

``lightsearch.settings`` takes its ``LIGHT_*``, ``WEB_*``, ``RESULT_*`` and ``BRAVE_*``
defaults from here, :func:`validate` checks values against it (and refuses unknown keys
with our prefixes, suggesting the closest known one), and ``docs/SETTINGS.md`` is
generated from it (``python -m lightsearch.schema``; a test keeps the file current).
Bounds from docs/BOUNDS.md's table may be shortened, never lengthened.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.windows import DEFAULT_NEWS_WINDOW, NEWS_WINDOWS

PREFIXES = ("LIGHT_", "WEB_", "RESULT_", "BRAVE_", "FLEET_")
KiB, MiB = 1024, 1024 * 1024


@dataclass(frozen=True)
class Setting:
    key: str
    type: str  # int, float, bool, str, path (an import path), dict, list
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    items: str | None = None  # a list's item type ("int": low .. high bound each item)

    def range_text(self) -> str:
        if self.choices:
            return " / ".join(self.choices)
        if self.low is not None:
            return f"{number_text(self.low)} .. {number_text(self.high)}"
        return ""


def _s(key: str, type_: str, default: Any, doc: str, low: float | None = None, high: float | None = None,
       **kw: Any) -> Setting:
    return Setting(key, type_, default, doc, low, high, **kw)


SCHEMA: tuple[Setting, ...] = (
    # --- Light: the crawl's bounds (docs/BOUNDS.md's table)
    _s("LIGHT_CATALOG", "str", None, "a catalog JSON file to use instead of the bundled one", nullable=True),
    _s("LIGHT_CATALOG_EXTRA", "str", None, "a user catalog whose sources extend the catalog (`lightsearch "
       "sources add`); the result has a corpus id of its own", nullable=True),
    _s("LIGHT_SOURCE_SUMMARY", "str", None, "the prebuilt source descriptions a process starts from "
       "(`lightsearch sources describe`); None: <catalog>.summary.json beside the catalog file when there "
       "is one; empty: none", nullable=True),
    _s("LIGHT_DEADLINE_SECS", "float", 30.0, "hard deadline of a search; a timeout is an error", 0.5, 120),
    _s("LIGHT_SOFT_DEADLINE_SECS", "float", 20.0, "no new hop after this; results so far are returned", 0.1, 120),
    _s("LIGHT_MAX_HOPS", "int", 24, "HTTP hops per search, robots.txt and redirects included", 1, 200),
    _s("LIGHT_MAX_SOURCES", "int", 6, "catalog sources selected for live discovery", 1, 20),
    _s("LIGHT_MIN_SOURCES", "int", 3, "always select at least this many of the best-ranked sources", 1, 20),
    _s("LIGHT_FIRST_SOURCES", "int", 2, "when the hops cannot open every selected source, open at least this "
       "many first; the others wait in reserve for the hops these leave", 1, 20),
    _s("LIGHT_SOURCE_KEEP_RATIO", "float", 0.5, "beyond the minimum, keep sources scoring this share of the best", 0, 1),
    _s("LIGHT_MAX_QUERIES", "int", 5, "queries per search", 1, 10),
    _s("LIGHT_MAX_QUERY_CHARS", "int", 400, "characters per query", 10, 2000),
    _s("LIGHT_MAX_QUERY_WORDS", "int", 50, "words per query", 1, 200),
    _s("LIGHT_MAX_RESULTS", "int", 8, "hits returned when the caller does not say", 1, 20),
    _s("LIGHT_RESPONSE_MAX_BYTES", "int", 512 * KiB, "per response, encoded and decoded", KiB, 16 * MiB),
    # The response head, bounded while it arrives; Twisted would keep any number.
    _s("LIGHT_RESPONSE_MAX_HEADERS", "int", 100, "header fields per response; more is too_large", 16, 1000),
    _s("LIGHT_RESPONSE_MAX_HEADER_BYTES", "int", 64 * KiB,
       "bytes of status line and header fields per response; more is too_large", 4 * KiB, MiB),
    _s("LIGHT_RESPONSE_MAX_ENCODINGS", "int", 2,
       "stacked Content-Encoding layers (reliability.md §0.7); more is unsupported_encoding, "
       "refused before any is decoded", 1, 4),
    _s("LIGHT_MAX_ENCODED_BYTES", "int", 8 * MiB, "encoded bytes per search", KiB, 256 * MiB),
    _s("LIGHT_MAX_DECODED_BYTES", "int", 8 * MiB, "decoded bytes per search", KiB, 256 * MiB),
    _s("LIGHT_DISCOVERY_EXPLORE", "bool", True, "follow a few navigation links of seed pages with spare hops"),
    _s("LIGHT_DISCOVERY_MAX_CANDIDATES", "int", 256, "candidate links admitted per search", 1, 10_000),
    _s("LIGHT_DISCOVERY_MAX_DEPTH", "int", 2, "link depth from a seed, feed or sitemap", 0, 5),
    _s("LIGHT_DISCOVERY_MAX_SITEMAPS", "int", 4, "sitemaps fetched per search (fresh cached ones are free); "
       "more is an opt-in profile beyond the seed's bounds", 0, 64),
    _s("LIGHT_MAX_PAGE_HOPS", "int", 14, "hops a search spends reading pages as evidence, per query of the "
       "request and never fewer than its maxResults (the rest of the hop budget is for discovery); a search "
       "whose site maps are cached stops here rather than read 24 pages", 1, 1000),
    _s("LIGHT_ARTICLE_HOPS", "int", 8, "the last hops of a search, kept for reading the best candidates; before "
       "them discovery documents go first (at most half the hop budget)", 1, 200),
    _s("LIGHT_FRONTIER_QUERY_CHARGE", "float", 2.0, "priority points a query pays per hop it was given", 0, 100),
    _s("LIGHT_FRONTIER_SOURCE_CHARGE", "float", 3.0, "priority points a source's discovery documents pay per hop it was given (its pages pay none)", 0, 100),
    _s("LIGHT_HOST_MAP", "dict", {}, "host -> {scheme: 'addr:port'}: configuration only, never tool input"),
    _s("LIGHT_HOST_MAP_ONLY", "bool", False, "refuse every host the map does not name (offline worlds, tests)"),
    _s("LIGHT_ADHOC_SOURCES", "bool", True, "a site includeDomains names that the catalog does not hold is probed "
       "and searched on the spot, within the search's own bounds (docs/SOURCES.md); false: it is only a note"),
    _s("LIGHT_ADHOC_MAPPED_HOSTS", "list", [], "hosts of LIGHT_HOST_MAP that a call's includeDomains may probe on "
       "the spot (offline worlds, tests); configuration only: any other mapped host is refused (blocked_address)"),
    _s("LIGHT_ADHOC_ENTRY_SECS", "float", 24 * 3600.0, "how long what a search learned of a site it probed on the "
       "spot (its home page, feeds, sitemaps and their descriptions) is kept in the record cache", 0, 24 * 3600),
    _s("LIGHT_MAX_CONCURRENCY", "int", 3, "transfers at once per process, shared by concurrent searches", 1, 64),
    _s("LIGHT_MAX_CONCURRENCY_PER_ORIGIN", "int", 1, "transfers at once per origin", 1, 1),
    _s("LIGHT_KEEP_CONNECTIONS", "bool", True, "keep a search's connections to catalog origins open for "
       "the next search (one per origin; web_fetch never keeps them)"),
    _s("LIGHT_KEEP_CONNECTIONS_IDLE_SECS", "float", 60.0, "a kept connection closes after this long idle",
       1, 600),
    _s("LIGHT_POLITENESS_LIMITER", "path", "lightsearch.crawl.politeness.InProcessLimiter",
       "the per-origin and per-process limiter"),
    _s("LIGHT_SNIPPET_CHARS", "int", 280, "snippet length around the densest passage", 40, 4000),
    _s("LIGHT_TEXT_MAX_BYTES", "int", 16 * KiB, "UTF-8 bytes of a Light result's model text", 512, MiB),
    _s("LIGHT_TLS_CA_FILE", "str", None, "an extra CA to trust (the offline origins' test CA)", nullable=True),
    _s("LIGHT_TLS_VERIFY", "bool", True, "verify certificates and host names"),
    # --- web hygiene
    _s("LIGHT_ALLOWED_ENCODINGS", "list", ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "cp1255", "iso8859-8",
                                           "cp1252", "latin-1"], "declared encodings a page may use"),
    _s("LIGHT_DISCOVERY_MAX_AGE_SECS", "float", 300.0, "feeds, sitemaps, hubs: longest cache lifetime", 0, 300),
    _s("LIGHT_PAGE_MAX_AGE_SECS", "float", 1800.0, "pages: longest cache lifetime", 0, 1800),
    _s("LIGHT_RECORD_CACHE", "path", "lightsearch.cache.records.MemoryRecordCache",
       "the completed-record cache (None: no caching)", nullable=True),
    _s("LIGHT_RECORD_CACHE_MAX_RECORDS", "int", 500, "records in the completed-record cache", 0, 500),
    _s("LIGHT_RECORD_CACHE_MAX_BYTES", "int", 16 * MiB, "serialized bytes in the record cache", 0, 16 * MiB),
    _s("LIGHT_RECORD_CACHE_DISCOVERY_SHARE", "float", 0.5, "share of the record cache's entries and bytes "
       "reserved for discovery responses (feeds, sitemaps, home, hub and listing pages): documents never evict "
       "them while they fit in it", 0, 1),
    _s("LIGHT_DISCOVERY_CACHE_MAX_RECORDS", "int", 0, "0: discovery responses live inside the record cache's "
       "bounds; more (with LIGHT_DISCOVERY_CACHE_MAX_BYTES): a cache of their own beside it, an opt-in profile "
       "beyond the seed's bounds", 0, 4096),
    _s("LIGHT_DISCOVERY_CACHE_MAX_BYTES", "int", 0, "bytes of the opt-in discovery cache of its own (0: none)",
       0, 64 * MiB),
    _s("LIGHT_ROBOTS_CACHE", "path", "lightsearch.cache.robots.MemoryRobotsCache",
       "the robots rules cache (None: per search only)", nullable=True),
    _s("LIGHT_ROBOTS_CACHE_MAX_AGE_SECS", "float", 24 * 3600.0, "robots rules lifetime", 0, 24 * 3600),
    _s("LIGHT_ROBOTS_CACHE_MAX_BYTES", "int", 4 * MiB, "serialized robots rules kept", 0, 4 * MiB),
    _s("LIGHT_ROBOTS_CACHE_MAX_ORIGINS", "int", 64, "origins whose robots rules are kept", 0, 64),
    _s("LIGHT_ROBOTS_MAX_BYTES", "int", 500 * KiB, "RFC 9309's parse limit; a larger body blocks the origin",
       KiB, 512 * KiB),
    _s("LIGHT_ROBOTS_MAX_REDIRECTS", "int", 5, "robots.txt redirects followed; more means unavailable", 0, 10),
    _s("LIGHT_ROBOTS_TIMEOUT_SECS", "float", 5.0, "a robots.txt that times out blocks the origin", 0.1, 60),
    # --- work on untrusted bytes: a pool of worker processes (lightsearch/isolation)
    _s("LIGHT_POOL_WORKERS", "int", 4, "worker processes that extract pages, read PDFs and parse feeds, sitemaps "
       "and links, for every search and fetch of the process; one call uses at most half of them at once",
       1, 64),
    _s("LIGHT_POOL_TASK_SECS", "float", 10.0, "wall time one extraction or parse may take; past it (or past its "
       "call's deadline) its worker is killed and the call gets timeout (reason extraction_time)", 0.5, 120),
    _s("LIGHT_POOL_WORKER_MAX_BYTES", "int", 512 * MiB, "address space of one worker (RLIMIT_AS); a task "
       "needing more is too_large (reason extraction_memory) and its worker is replaced", 128 * MiB, 16 * 1024 * MiB),
    # --- transport guard
    _s("LIGHT_ALLOWED_PORTS", "list", [80, 443, 8080, 8443], "explicit URL ports the guard lets through",
       1, 65535, items="int"),
    _s("LIGHT_RESOLVER", "path", "lightsearch.crawl.guard.resolver.SystemResolver",
       "name resolution; every A/AAAA answer is vetted"),
    _s("LIGHT_RESOLVER_OVERRIDES", "dict", {}, "host -> configured answers (still vetted)"),
    # --- web_fetch
    _s("WEB_FETCH_ENABLED", "bool", True, "web_fetch answers `disabled` when false"),
    _s("WEB_FETCH_DEADLINE_SECS", "float", 30.0, "hard deadline of a fetch; a timeout is an error", 0.5, 120),
    _s("WEB_FETCH_MAX_BYTES", "int", 512 * KiB, "per response, encoded and decoded", KiB, 16 * MiB),
    _s("WEB_FETCH_MAX_CHARS", "int", 8000, "characters of text per read when the caller does not say", 1, 100_000),
    _s("WEB_FETCH_MAX_REDIRECTS", "int", 5, "redirects and meta refreshes, each re-checked by the guard", 0, 10),
    _s("WEB_FETCH_META_REFRESH_MAX_DELAY", "float", 10.0, "follow <meta http-equiv=refresh> up to this delay",
       0, 60),
    _s("WEB_FETCH_ROBOTSTXT_OBEY", "bool", True, "obey robots.txt (per fetch: robots=False)"),
    _s("WEB_FETCH_MAX_URLS", "int", 5, "URLs one web_fetch call may read together, concurrently", 1, 10),
    _s("WEB_FETCH_PDF_MAX_PAGES", "int", 200, "PDF pages read per fetch; the rest are counted in notes", 1, 5000),
    _s("WEB_FETCH_READER_URL", "str", None, "a hosted reader (e.g. https://r.jina.ai/) asked when local "
       "extraction is thin: the page URL is appended and SENT TO THAT THIRD PARTY; None: off",
       nullable=True),
    _s("WEB_FETCH_READER_MIN_CHARS", "int", 200, "local text shorter than this asks the reader, when one is set",
       0, 100_000),
    # --- agent surfaces (lightsearch mcp / serve / tools, lightsearch.surfaces.tools)
    _s("WEB_RETRIEVAL_ENABLED", "bool", True, "the kill switch: false hides the web tools on every surface and "
       "every search and fetch (Python API, commands, MCP, invoke, Brave's page fetches) answers `disabled`; "
       "the environment's WEB_RETRIEVAL_ENABLED=false or LIGHTSEARCH_NO_WEB=1 turns it off too, and off wins"),
    _s("WEB_SEARCH_MAX_RESULTS", "int", 8, "web_search/web_news maxResults when a call does not say", 1, 20),
    _s("WEB_SEARCH_PROVIDER_CHOICES", "list", [], "providers a web_search call may name in `provider`; "
       "empty: the argument is not offered"),
    _s("WEB_TOOLS_SEARCHES_PER_MINUTE", "int", 30, "web_search + web_news calls per client per minute "
       "(MCP server, invoke endpoint); 0: no limit", 0, 10_000),
    _s("WEB_TOOLS_FETCHES_PER_MINUTE", "int", 60, "web_fetch calls per client per minute; 0: no limit",
       0, 10_000),
    _s("WEB_TOOLS_CALLS_IN_FLIGHT", "int", 4, "tool calls of one client running at once on the served surfaces "
       "(MCP over HTTP, invoke) while it is the only client present; with others present (calls running, "
       "waiting or ended in the last 10 s), divided among them, at least 1; more wait their turn, in order, "
       "before any of their work starts; 0: no limit",
       0, 1_000),
    _s("WEB_INVOKE_MAX_BODY_BYTES", "int", 64 * KiB, "request body of POST /api/skills/invoke and /mcp",
       KiB, 16 * MiB),
    # --- lightsearch serve: the HTTP boundary (docs/SECURITY.md)
    _s("WEB_SERVE_ALLOWED_HOSTS", "list", [], "Host names the server answers to besides its bind address "
       "(and, on loopback, localhost, 127.0.0.1 and [::1]); any other Host is 421 invalid_host. A wildcard "
       "bind (0.0.0.0, ::) answers only to loopback names and these (CLI: --allowed-hosts)"),
    _s("WEB_SERVE_ALLOWED_ORIGINS", "list", [], "browser origins (scheme://host[:port]) allowed besides the "
       "server's own; any other Origin, and `null`, is 403 forbidden_origin"),
    _s("WEB_SERVE_FORWARDED_ALLOW_IPS", "list", [], "proxies (addresses or networks) whose X-Forwarded-For "
       "and X-Forwarded-Proto are believed; empty: forwarded headers are ignored (CLI: --forwarded-allow-ips)"),
    _s("WEB_SERVE_MAX_CONNECTIONS", "int", 256, "open connections per server process (never more than half "
       "its file limit); at the cap the connection idle longest before a request is closed for a new one",
       8, 65_536),
    _s("WEB_SERVE_HEADER_TIMEOUT_SECS", "float", 10.0, "a request head (line and header fields) must arrive "
       "within this, from the connection's start or its previous response; else the connection is closed",
       0.1, 120),
    _s("WEB_SERVE_BODY_TIMEOUT_SECS", "float", 10.0, "a request body must arrive within this after its head; "
       "else the connection is closed", 0.1, 300),
    _s("WEB_SERVE_SEND_TIMEOUT_SECS", "float", 30.0, "a client that reads none of a response for this long is "
       "disconnected", 0.1, 600),
    _s("WEB_SERVE_SEND_BUFFER_BYTES", "int", 262144, "the kernel's send buffer of each connection (0: the "
       "kernel sizes it): bounds what a client that reads nothing makes the server answer before the send "
       "timeout starts", 0, 16777216),
    _s("WEB_SERVE_MAX_JSON_DEPTH", "int", 32, "nesting of a request body's JSON; deeper is 400 invalid_json",
       4, 256),
    _s("WEB_SERVE_AUTH_FAILURES_PER_MINUTE", "int", 10, "failed bearer-token attempts per client per minute; "
       "then every request of that client is 429 until the minute has passed", 1, 1000),
    _s("WEB_SERVE_MAX_SESSIONS", "int", 256, "open MCP sessions per server process; a new one closes the "
       "least recently used idle session of the client holding most, or is 503 when none is idle", 1, 100_000),
    _s("WEB_SERVE_MAX_SESSIONS_PER_CLIENT", "int", 16, "open MCP sessions per client address; a new one "
       "closes that client's least recently used idle session", 1, 10_000),
    _s("WEB_SERVE_SESSION_IDLE_SECS", "float", 300.0, "an MCP session with no request in flight for this long "
       "is closed", 1, 1800),
    # --- providers
    _s("WEB_SEARCH_PROVIDER", "str", None, "light / brave / auto (fused) / fallback / an engine / a class path; "
       "None: Brave with a key, else Light",
       nullable=True),
    _s("BRAVE_SEARCH_API_KEY", "str", None, "None: read the BRAVE_SEARCH_API_KEY environment variable",
       nullable=True),
    _s("BRAVE_API_URL", "str", "https://api.search.brave.com/res/v1/web/search", "the API endpoint (https only)"),
    _s("BRAVE_TLS_CA_FILE", "str", None, "an extra CA to trust for the API (a replay server's)", nullable=True),
    _s("BRAVE_TIMEOUT_SECS", "float", 10.0, "the API call; a timeout is provider_timeout", 0.1, 120),
    _s("BRAVE_DEADLINE_SECS", "float", 30.0, "the whole search, source-page fetches included", 0.5, 300),
    _s("BRAVE_RESPONSE_MAX_BYTES", "int", MiB, "API body, encoded and decoded", KiB, 64 * MiB),
    _s("BRAVE_EXTRA_SNIPPETS", "bool", True, "ask for extra_snippets"),
    _s("BRAVE_SNIPPET_CHARS", "int", 480, "description plus extra snippets, per hit", 40, 4000),
    _s("BRAVE_COUNTRY", "str", None, "Brave `country`, e.g. us or il", nullable=True),
    _s("BRAVE_SEARCH_LANG", "str", None, "Brave `search_lang`, e.g. en or he", nullable=True),
    _s("BRAVE_SOURCE_FETCH", "bool", True, "read the top hits' pages through web_fetch"),
    _s("BRAVE_SOURCE_FETCH_PAGES", "int", 3, "top hits whose pages are read", 0, 20),
    _s("BRAVE_SOURCE_FETCH_TIMEOUT_SECS", "float", 8.0, "per page; a page that misses it keeps its hit", 0.1, 120),
    _s("BRAVE_SOURCE_FETCH_MAX_CHARS", "int", 20000, "page text searched for the excerpt per hit", 100, 100_000),
    # --- keyless engines, fallback and fused modes
    _s("WEB_SEARCH_REGION", "str", None, "region-language, e.g. us-en or il-he (a call's `region` overrides it): "
       "DDG kl, Google News hl/gl/ceid, Wikipedia language; None: worldwide, language from the query script",
       nullable=True),
    _s("WEB_SEARCH_DEADLINE_SECS", "float", 8.0, "a whole engine search (fallback chain or fused)", 0.5, 120),
    _s("WEB_SEARCH_ENGINE_TIMEOUT_SECS", "float", 5.0, "one engine request, inside the deadline", 0.1, 60),
    _s("WEB_SEARCH_RETRY_MAX_SECS", "float", 20.0, "longest Retry-After honoured on 429/503 (inside the deadline)",
       0, 20),
    _s("WEB_SEARCH_RESPONSE_MAX_BYTES", "int", 2 * MiB, "engine response body, encoded and decoded", KiB, 32 * MiB),
    _s("WEB_SEARCH_TLS_CA_FILE", "str", None, "an extra CA to trust for engine endpoints (a replay server's)",
       nullable=True),
    _s("WEB_SEARCH_USER_AGENT", "str",
       "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
       "browser-like User-Agent for DuckDuckGo (fixed per process)"),
    _s("WEB_SEARCH_FALLBACK_ORDER", "list", ["tavily", "brave", "openrouter", "ddg_html", "ddg_lite"],
       "fallback mode: engines tried in order, those without a key skipped"),
    _s("WEB_SEARCH_FUSED_ENGINES", "list", ["duckduckgo", "wikipedia", "hn", "news"],
       "fused mode members (hn only for technical queries, news only with recency or a newsy query)"),
    _s("WEB_SEARCH_FUSED_LIGHT", "bool", False, "fused mode: Light is a member too (brings page text)"),
    _s("WEB_SEARCH_FUSED_WEIGHTS", "dict", {"duckduckgo": 1.0, "wikipedia": 0.8, "hn": 0.7, "news": 0.9,
                                            "light": 1.0, "reddit": 0.5},
       "fused mode: reciprocal-rank fusion weight per engine (missing: 1.0)"),
    _s("WEB_SEARCH_CACHE", "path", "lightsearch.cache.searches.MemorySearchCache",
       "the search/news answer cache (None: no caching)", nullable=True),
    _s("WEB_SEARCH_CACHE_TTL_SECS", "float", 300.0, "lifetime of a cached search or news answer", 0, 3600),
    _s("WEB_SEARCH_CACHE_MAX_ENTRIES", "int", 256, "answers kept in the search cache", 0, 10_000),
    _s("WEB_SEARCH_SUSPENSION", "path", "lightsearch.cache.suspension.MemorySuspensions",
       "the per-engine suspension store (None: never suspend)", nullable=True),
    _s("WEB_SEARCH_DDG_HTML_URL", "str", "https://html.duckduckgo.com/html/", "DuckDuckGo html endpoint (POST)"),
    _s("WEB_SEARCH_DDG_LITE_URL", "str", "https://lite.duckduckgo.com/lite/", "DuckDuckGo lite endpoint (POST)"),
    _s("WEB_SEARCH_GOOGLE_NEWS_URL", "str", "https://news.google.com/rss/search", "Google News RSS search"),
    _s("WEB_SEARCH_WIKIPEDIA_URL", "str", "https://{lang}.wikipedia.org/w/api.php",
       "Wikipedia action API; {lang} is the language"),
    _s("WEB_SEARCH_WIKIPEDIA_LANG", "str", None, "Wikipedia language; None: from the region or the query script",
       nullable=True),
    _s("WEB_SEARCH_HN_URL", "str", "https://hn.algolia.com/api/v1", "Hacker News Algolia API base"),
    _s("WEB_SEARCH_REDDIT_URL", "str", "https://www.reddit.com/search.json", "Reddit search (best effort)"),
    _s("WEB_SEARCH_REDDIT_USER_AGENT", "str", "lightsearch/0.1 (keyless search for agents)",
       "Reddit asks for an honest User-Agent"),
    _s("WEB_SEARCH_SEARXNG_URL", "str", None, "a SearXNG instance base URL (json format enabled); None: off",
       nullable=True),
    _s("WEB_SEARCH_TAVILY_URL", "str", "https://api.tavily.com/search", "Tavily search endpoint"),
    _s("WEB_SEARCH_TAVILY_API_KEY", "str", None, "None: the TAVILY_API_KEY environment variable", nullable=True),
    _s("WEB_SEARCH_OPENROUTER_URL", "str", "https://openrouter.ai/api/v1/chat/completions",
       "OpenRouter chat completions endpoint"),
    _s("WEB_SEARCH_OPENROUTER_API_KEY", "str", None, "None: the OPENROUTER_API_KEY environment variable",
       nullable=True),
    _s("WEB_SEARCH_OPENROUTER_MODEL", "str", "openai/gpt-4o-mini:online", "a cheap model with web search"),
    _s("WEB_NEWS_WHEN", "str", DEFAULT_NEWS_WINDOW, "web_news window when the caller does not say",
       choices=tuple(NEWS_WINDOWS)),
    _s("WEB_NEWS_LIGHT", "bool", True, "web_news: fuse the catalog's news sources when they answer in time"),
    _s("WEB_NEWS_DEADLINE_SECS", "float", 8.0, "a whole web_news search", 0.5, 120),
    # --- a fleet of workers sharing state on Redis (lightsearch/fleet)
    _s("FLEET_REDIS_URL", "str", None, "Redis shared by the fleet (None: the LIGHTSEARCH_REDIS_URL environment "
       "variable; unset: in-process state)", nullable=True),
    _s("FLEET_REDIS_PREFIX", "str", "lightsearch:", "prefix of every key, so fleets can share one Redis"),
    _s("FLEET_KEY", "str", None, "the fleet's secret (32+ characters, the same on every worker): every record "
       "in Redis carries an HMAC with it, and one that does not verify is dropped. None: the "
       "LIGHTSEARCH_FLEET_KEY environment variable; neither: records are unsigned, allowed only for a Redis on "
       "loopback (docs/SECURITY.md)", nullable=True),
    _s("FLEET_REDIS_TIMEOUT_MS", "float", 25.0, "longest wait for one Redis command, its whole answer however "
       "slowly it arrives, before the worker falls back to its in-process state", 1, 5000),
    _s("FLEET_REDIS_RETRY_SECS", "float", 2.0, "after a Redis failure, in-process state for this long, then "
       "Redis is asked again", 0.05, 600),
    _s("FLEET_LEASE_SECS", "float", 10.0, "an origin's fleet lease; renewed while the transfer runs, so a "
       "killed worker's origins are free within it", 0.2, 300),
    # --- evidence
    _s("RESULT_TEXT_MAX_BYTES", "int", 16 * KiB, "UTF-8 bytes of model text (Brave, engines, web_fetch)", 512, MiB),
    _s("RESULT_MAX_BYTES", "int", 64 * KiB, "whole result as compact JSON; receipts give way first", 1024, 16 * MiB),
    _s("RESULT_CONTENT_MAX_CHARS", "int", 1200, "page-text excerpt per hit", 40, 100_000),
    _s("RESULT_RECEIPT_MAX_ENTRIES", "int", 20, "meta.webSources entries at most; the rest are counted", 0, 200),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in SCHEMA}

# The most characters one web_fetch read may ask for (``maxChars``, in the tool's schema
# and where a fetch starts): the bound of the setting that gives the default.
MAX_CHARS_LIMIT = int(BY_KEY["WEB_FETCH_MAX_CHARS"].high or 0)


def defaults() -> dict[str, Any]:
    """Fresh copies of every default (mutable ones must not be shared between settings)."""
    import copy

    return {s.key: copy.deepcopy(s.default) for s in SCHEMA}


class Values:
    """Settings read without Scrapy: ``values`` over the table's defaults, read as Scrapy's
    ``Settings`` reads them. For what must answer before any crawler exists (a command's
    help, the tool definitions an agent asks for first)."""

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self.values = dict(values or {})

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.values:
            return self.values[key]
        return BY_KEY[key].default if key in BY_KEY else default

    def getint(self, key: str) -> int:
        return int(float(self.get(key)))

    def getfloat(self, key: str) -> float:
        return float(self.get(key))

    def getbool(self, key: str) -> bool:
        value = self.get(key)
        return value.strip().lower() in ("1", "true") if isinstance(value, str) else bool(value)

    def getlist(self, key: str) -> list[Any]:
        value = self.get(key)
        if value is None:
            return []
        return [v for v in value.split(",") if v] if isinstance(value, str) else list(value)


def number_text(value: float | None) -> str:
    """A bound as people write it: ``16777216``, ``0.5``, never ``1.67772e+07``."""
    if value is None:
        return ""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6g}" if abs(value) < 1e6 else str(value)


def invalid(key: str, message: str, value: Any = None, **extra: Any) -> LightSearchError:
    return LightSearchError("invalid_settings", f"setting {key}: {message}",
                            {"key": key, "value": repr(value)[:80], **extra})


def _number(spec: Setting, raw: Any) -> float:
    if isinstance(raw, bool):
        raise invalid(spec.key, f"must be a number, got {quote_untrusted(raw)}", raw)
    try:
        if spec.type == "int":
            if isinstance(raw, float) and not raw.is_integer():
                raise ValueError(raw)
            value: float = int(str(raw).strip()) if isinstance(raw, str) else int(raw)
        else:
            value = float(raw)
    except (TypeError, ValueError, OverflowError):
        kind = "an integer" if spec.type == "int" else "a number"
        raise invalid(spec.key, f"must be {kind}, got {quote_untrusted(raw)}", raw) from None
    if spec.low is not None and not spec.low <= value <= spec.high:
        raise invalid(spec.key, f"must be between {number_text(spec.low)} and {number_text(spec.high)}, "
                      f"got {number_text(value)}", raw)
    return value


def check_value(spec: Setting, raw: Any) -> None:
    """Raise ``invalid_settings`` naming the key when ``raw`` is not a valid value."""
    if raw is None:
        if spec.nullable or spec.type == "path":
            return
        raise invalid(spec.key, "must be set", raw)
    if spec.type in ("int", "float"):
        _number(spec, raw)
    elif spec.type == "bool":
        if not (isinstance(raw, bool) or (isinstance(raw, (int, str)) and str(raw).strip().lower()
                                          in {"0", "1", "true", "false"})):
            raise invalid(spec.key, f"must be true or false, got {quote_untrusted(raw)}", raw)
    elif spec.type in ("str", "path"):
        if not isinstance(raw, str):
            raise invalid(spec.key, f"must be a string, got {quote_untrusted(raw)}", raw)
        if spec.choices and raw not in spec.choices:
            raise invalid(spec.key, f"must be one of {', '.join(spec.choices)}, got {quote_untrusted(raw)}",
                          raw, allowed=list(spec.choices))
    elif spec.type == "dict":
        if not isinstance(raw, (Mapping, str)) and not hasattr(raw, "copy_to_dict"):
            raise invalid(spec.key, "must be a mapping", raw)
    elif spec.type == "list":
        if not isinstance(raw, (list, tuple, str)):
            raise invalid(spec.key, "must be a list", raw)
        if spec.items == "int":
            _int_items(spec, raw)


def _int_items(spec: Setting, raw: Any) -> None:
    """Each item of a list of integers (a string is read as Scrapy's ``getlist`` reads it:
    comma-separated)."""
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    shown = raw if isinstance(raw, str) else ",".join(map(str, items))
    for item in items:
        text = item.strip() if isinstance(item, str) else item
        ok = not isinstance(text, bool) and (isinstance(text, int) or (isinstance(text, str) and text.isascii()
                                                                         and text.isdigit()))
        if not ok or (spec.low is not None and not spec.low <= int(text) <= spec.high):
            raise invalid(spec.key, f"must be a list of integers between {number_text(spec.low)} and "
                          f"{number_text(spec.high)}, got {quote_untrusted(shown)}", raw)


_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def from_text(key: str, text: str) -> Any:
    """A command line's ``-s KEY=VALUE`` as the value its row takes: a number, a boolean, a
    list (``a,b`` or a JSON list), a mapping (a JSON object) or the string; a value the row
    cannot take is ``invalid_settings`` naming the key, an unknown key one naming the
    closest known key."""
    spec = BY_KEY.get(key)
    if spec is None:
        raise unknown_key_error(key)
    raw = text.strip()
    value: Any = text
    if spec.type in ("int", "float"):
        number = _number(spec, raw)
        value = int(number) if spec.type == "int" else number
    elif spec.type == "bool":
        if raw.lower() not in _TRUE | _FALSE:
            raise invalid(key, f"must be true or false, got {quote_untrusted(text)}", text)
        value = raw.lower() in _TRUE
    elif spec.type == "list":
        value = _json(spec, raw, list, "a comma-separated list or a JSON list") if raw.startswith("[") else \
            [part.strip() for part in raw.split(",") if part.strip()]
        if spec.items == "int":
            _int_items(spec, value)
            value = [int(v) for v in value]
    elif spec.type == "dict":
        value = _json(spec, raw, dict, "a JSON object") if raw else {}
    check_value(spec, value)
    return value


def _json(spec: Setting, raw: str, kind: type, what: str) -> Any:
    import json

    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, kind):
        raise invalid(spec.key, f"must be {what}, got {quote_untrusted(raw)}", raw)
    return value


def unknown_key_error(key: str) -> LightSearchError:
    close = difflib.get_close_matches(key, BY_KEY, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return LightSearchError("invalid_settings", f"unknown setting {key}{hint}",
                            {"key": key, **({"didYouMean": close[0]} if close else {})})


def validate(settings: Any, prefixes: Iterable[str]) -> None:
    """Check every setting whose key starts with one of ``prefixes``: unknown keys first
    (a typo must not be silently ignored), then each known value against its row."""
    prefixes = tuple(prefixes)
    keys = settings.copy_to_dict().keys() if hasattr(settings, "copy_to_dict") else settings.keys()
    for key in sorted(keys):
        if key.startswith(prefixes) and key not in BY_KEY:
            raise unknown_key_error(key)
    for spec in SCHEMA:
        if spec.key.startswith(prefixes):
            check_value(spec, settings.get(spec.key))


def markdown() -> str:
    """The settings reference, generated from :data:`SCHEMA`."""
    lines = ["# Settings", "",
             "Generated from `lightsearch/schema.py` (`python -m lightsearch.schema > docs/SETTINGS.md`).",
             "Set them with `-s KEY=VALUE` on the command line or in `from_settings({...})`.", "",
             "| key | type | default | allowed | what it does |", "| --- | --- | --- | --- | --- |"]
    for s in SCHEMA:
        default = "None" if s.default is None else repr(s.default)
        lines.append(f"| `{s.key}` | {s.type} | `{default}` | {s.range_text()} | {s.doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(markdown(), end="")
