"""Default settings of lightsearch: Scrapy's own knobs as Light needs them, then ours.

This is the project's settings module (``scrapy.cfg`` points here) and the one place where
every ``LIGHT_*`` default lives. The bounds are the table in DESIGN.md; each one is a
setting so tests can shrink it and deployments can tune it within the limits that
:mod:`lightsearch.config` enforces.
"""

BOT_NAME = "lightsearch"
SPIDER_MODULES = ["lightsearch.spiders"]
NEWSPIDER_MODULE = "lightsearch.spiders"

USER_AGENT = "lightsearch/0.1 (+https://github.com/lightsearch/lightsearch; lightbot)"

# --- Scrapy, hardened for a server-side search tool -------------------------------------
# Telnet and the remote-control extension execute code on request: never on.
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
# Environment proxies would let the transport guard vet the proxy instead of the target.
HTTPPROXY_ENABLED = False
# No cookies or credentials are ever sent.
COOKIES_ENABLED = False
# Only http(s) through our handler; the file, data, ftp and s3 handlers are off.
DOWNLOAD_HANDLERS = {
    "data": None,
    "file": None,
    "ftp": None,
    "s3": None,
    "http": "lightsearch.crawl.transport.LightDownloadHandler",
    "https": "lightsearch.crawl.transport.LightDownloadHandler",
}
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

CONCURRENT_REQUESTS = 3
CONCURRENT_REQUESTS_PER_DOMAIN = 1
DOWNLOAD_DELAY = 0
DOWNLOAD_TIMEOUT = 10
DOWNLOAD_MAXSIZE = 512 * 1024
DOWNLOAD_WARNSIZE = 0
DNS_TIMEOUT = 5
RETRY_ENABLED = False
REDIRECT_MAX_TIMES = 5
METAREFRESH_ENABLED = False
ROBOTSTXT_OBEY = True  # read by lightsearch.crawl.middlewares.robots, which replaces Scrapy's
ROBOTSTXT_USER_AGENT = "lightbot"
HTTPERROR_ALLOW_ALL = False
LOG_LEVEL = "WARNING"
# Scrapy parses each callback's source for a generator-with-return check; a new spider
# per search means no cache hit, ~3 ms a callback. Our callbacks are checked by tests.
WARN_ON_GENERATOR_RETURN_VALUE = False
STATS_DUMP = False
LOGSTATS_INTERVAL = 0

SCHEDULER = "lightsearch.crawl.scheduler.FrontierScheduler"

SPIDER_MIDDLEWARES = {
    # Depth and offsite are decided by the spider's own frontier rules.
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
}
DOWNLOADER_MIDDLEWARES = {
    # RFC 9309 with seed 000's strictness (an incomplete robots.txt blocks the origin).
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "lightsearch.crawl.middlewares.confine.RedirectConfinementMiddleware": 50,
    "lightsearch.crawl.middlewares.robots.RobotsMiddleware": 100,
    "lightsearch.crawl.middlewares.records.DiscoveryCacheMiddleware": 570,
    "lightsearch.crawl.middlewares.encoding.EncodingMiddleware": 550,
    "lightsearch.crawl.middlewares.budget.HopBudgetMiddleware": 950,
    "lightsearch.crawl.middlewares.decoded.DecompressionReserveMiddleware": 591,
    "lightsearch.crawl.middlewares.decoded.DecodedBytesMiddleware": 580,
}
EXTENSIONS = {
    "lightsearch.crawl.extensions.bytebudget.EncodedByteBudget": 100,
}
ITEM_PIPELINES = {
    "lightsearch.pipelines.extract.ExtractionPipeline": 300,
    "lightsearch.pipelines.cache.RecordCachePipeline": 700,
    "lightsearch.pipelines.rank.RankingPipeline": 800,
}

# --- Light -----------------------------------------------------------------------------
LIGHT_CATALOG = None  # path to a catalog JSON file; None means the bundled catalog
LIGHT_DEADLINE_SECS = 30.0
LIGHT_DISCOVERY_EXPLORE = True  # follow a few navigation links of seed pages with spare hops
LIGHT_DISCOVERY_MAX_CANDIDATES = 256
LIGHT_DISCOVERY_MAX_DEPTH = 2
LIGHT_DISCOVERY_MAX_SITEMAPS = 4
LIGHT_FRONTIER_QUERY_CHARGE = 2.0  # priority points a query pays per hop it was given
LIGHT_FRONTIER_SOURCE_CHARGE = 3.0  # priority points a source pays per hop it was given
LIGHT_HOST_MAP = {}  # {"host": {"http": "127.0.0.1:PORT", "https": "127.0.0.1:PORT"}}
LIGHT_HOST_MAP_ONLY = False  # refuse any host the map does not name (offline worlds, tests)
LIGHT_MAX_CONCURRENCY = 3  # transfers at once per process, shared by concurrent searches
LIGHT_MAX_CONCURRENCY_PER_ORIGIN = 1
LIGHT_MAX_ENCODED_BYTES = 8 * 1024 * 1024
LIGHT_MAX_DECODED_BYTES = 8 * 1024 * 1024
LIGHT_MAX_HOPS = 24
LIGHT_MAX_QUERIES = 5
LIGHT_MAX_QUERY_CHARS = 400
LIGHT_MAX_QUERY_WORDS = 50
LIGHT_MAX_RESULTS = 8
LIGHT_MAX_SOURCES = 6
LIGHT_MIN_SOURCES = 3  # always crawl at least this many of the best-ranked sources
LIGHT_POLITENESS_LIMITER = "lightsearch.crawl.politeness.InProcessLimiter"
LIGHT_RESPONSE_MAX_BYTES = 512 * 1024
LIGHT_SNIPPET_CHARS = 280
LIGHT_SOURCE_KEEP_RATIO = 0.5  # beyond the minimum, keep sources scoring this share of the best
LIGHT_SOFT_DEADLINE_SECS = 20.0
LIGHT_TEXT_MAX_BYTES = 16 * 1024
LIGHT_TLS_CA_FILE = None  # an extra CA to trust (the offline origins' test CA)
LIGHT_TLS_VERIFY = True

# --- web hygiene (issue 5): robots, directives, encodings, freshness, caches -------------
LIGHT_ALLOWED_ENCODINGS = [  # codec names as w3lib resolves labels; ISO-8859-1 reads as 1252
    "utf-8", "utf-16", "utf-16-le", "utf-16-be", "cp1255", "iso8859-8", "cp1252", "latin-1",
]
LIGHT_DISCOVERY_MAX_AGE_SECS = 300  # feeds and sitemaps: at most 5 minutes in the cache
LIGHT_PAGE_MAX_AGE_SECS = 1800  # pages: at most 30 minutes in the cache
LIGHT_RECORD_CACHE = "lightsearch.cache.records.MemoryRecordCache"  # None: no caching
LIGHT_RECORD_CACHE_MAX_RECORDS = 500
LIGHT_RECORD_CACHE_MAX_BYTES = 16 * 1024 * 1024  # serialized content, not heap
LIGHT_ROBOTS_CACHE = "lightsearch.cache.robots.MemoryRobotsCache"  # None: per search only
LIGHT_ROBOTS_CACHE_MAX_AGE_SECS = 24 * 3600
LIGHT_ROBOTS_CACHE_MAX_BYTES = 4 * 1024 * 1024
LIGHT_ROBOTS_CACHE_MAX_ORIGINS = 64
LIGHT_ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309's parse limit; a larger body blocks the origin
LIGHT_ROBOTS_MAX_REDIRECTS = 5  # RFC 9309: follow at least five; more means "unavailable"
LIGHT_ROBOTS_TIMEOUT_SECS = 5.0  # a robots.txt that times out blocks the origin

# --- transport guard and web_fetch (issue 7) ---------------------------------------------
LIGHT_ALLOWED_PORTS = [80, 443, 8080, 8443]  # explicit URL ports the guard lets through
LIGHT_RESOLVER = "lightsearch.crawl.guard.resolver.SystemResolver"  # every A/AAAA answer, vetted
LIGHT_RESOLVER_OVERRIDES = {}  # {"host": ["addr", ...]}: configured answers, still vetted
# Scrapy merges DOWNLOAD_HANDLERS over this base: empty, so a deployment that replaces
# DOWNLOAD_HANDLERS cannot bring the file, data, ftp or s3 handlers back by accident.
DOWNLOAD_HANDLERS_BASE = {}
WEB_FETCH_ENABLED = True
WEB_FETCH_DEADLINE_SECS = 30.0  # the Light hard deadline: a timeout is an error
WEB_FETCH_MAX_BYTES = 512 * 1024  # per response, encoded and decoded (the Light bound)
WEB_FETCH_MAX_CHARS = 8000
WEB_FETCH_MAX_REDIRECTS = 5  # redirects and meta refreshes, each re-checked by the guard
WEB_FETCH_META_REFRESH_MAX_DELAY = 10.0  # follow <meta http-equiv=refresh> up to this delay
WEB_FETCH_ROBOTSTXT_OBEY = True  # per-fetch override: WebFetch.fetch(..., robots=False)

# --- providers and Brave (issue 8) -------------------------------------------------------
# Which provider answers web_search, decided once when the tools load (providers/__init__).
# None: Brave when a trimmed, non-empty BRAVE_SEARCH_API_KEY is configured, else Light.
# "light" / "brave" (or a class path) choose explicitly. A Brave failure never runs Light.
WEB_SEARCH_PROVIDER = None
BRAVE_SEARCH_API_KEY = None  # None: read the BRAVE_SEARCH_API_KEY environment variable
BRAVE_API_URL = "https://api.search.brave.com/res/v1/web/search"  # https only
BRAVE_TLS_CA_FILE = None  # an extra CA to trust for the API (a test replay server's CA)
BRAVE_TIMEOUT_SECS = 10.0  # the API call; a timeout is a provider_timeout error, no retry
BRAVE_DEADLINE_SECS = 30.0  # the whole search, source-page fetches included
BRAVE_RESPONSE_MAX_BYTES = 1024 * 1024  # API body, encoded and decoded (20 hits are ~60 KiB)
BRAVE_EXTRA_SNIPPETS = True  # ask for extra_snippets; used when the plan returns them
BRAVE_SNIPPET_CHARS = 480  # description plus extra snippets, per hit
BRAVE_COUNTRY = None  # optional Brave "country" parameter, e.g. "us" or "il"
BRAVE_SEARCH_LANG = None  # optional Brave "search_lang" parameter, e.g. "en" or "he"
# Optional source-page fetches through web_fetch (guard, robots, limits) in parallel.
BRAVE_SOURCE_FETCH = True
BRAVE_SOURCE_FETCH_PAGES = 3  # the top hits whose pages are read
BRAVE_SOURCE_FETCH_TIMEOUT_SECS = 8.0  # per page; a page that misses it keeps its hit
BRAVE_SOURCE_FETCH_MAX_CHARS = 20000  # page text searched for the excerpt shown per hit

# --- evidence (issue 6) -------------------------------------------------------------------
# The model text of every result is bounded in UTF-8 bytes (Light keeps its own
# LIGHT_TEXT_MAX_BYTES, same default); the whole serialized result (compact JSON) is
# bounded too, and meta.webSources receipts give way first when it would not fit.
RESULT_TEXT_MAX_BYTES = 16 * 1024  # Brave, keyless engines and web_fetch model text
RESULT_MAX_BYTES = 64 * 1024  # whole result incl. model text and metadata
RESULT_CONTENT_MAX_CHARS = 1200  # page-text excerpt per hit (per-source clipping)
RESULT_RECEIPT_MAX_ENTRIES = 20  # meta.webSources entries at most; the rest are counted
