"""Default settings of lightsearch: Scrapy's own knobs as Light needs them, then ours.

This is the project's settings module (``scrapy.cfg`` points here). Our own defaults are
loaded from :mod:`lightsearch.schema`, the one table that also validates them and
generates docs/SETTINGS.md.
"""

from lightsearch.schema import defaults as _schema_defaults

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
# Scrapy starts CONCURRENT_ITEMS worker tasks for every callback's output (scrapy 2.19,
# core/scraper.py, _parallel_asyncio): at its default of 100 that is a hundred tasks per
# response, a share of a search's CPU (docs/EVALUATION.md). A crawl yields a few items
# per response and its pipelines are synchronous, so 4 lose nothing.
CONCURRENT_ITEMS = 4
DOWNLOAD_DELAY = 0
DOWNLOAD_TIMEOUT = 10
DOWNLOAD_MAXSIZE = 512 * 1024
DOWNLOAD_WARNSIZE = 0
DNS_TIMEOUT = 5
RETRY_ENABLED = False
REDIRECT_MAX_TIMES = 5
METAREFRESH_ENABLED = False
ROBOTSTXT_OBEY = True  # read by lightsearch.crawl.middlewares.robotstxt, which replaces Scrapy's
ROBOTSTXT_USER_AGENT = "lightbot"
HTTPERROR_ALLOW_ALL = False
LOG_LEVEL = "WARNING"
# Scrapy parses each callback's source for a generator-with-return check; a new spider
# per search means no cache hit, a parse per callback. Our callbacks are checked by tests.
WARN_ON_GENERATOR_RETURN_VALUE = False
STATS_DUMP = False
LOGSTATS_INTERVAL = 0

SCHEDULER = "lightsearch.crawl.scheduler.FrontierScheduler"
DUPEFILTER_CLASS = "lightsearch.crawl.dupefilter.UrlDupeFilter"

SPIDER_MIDDLEWARES = {
    # Depth and offsite are decided by the spider's own frontier rules.
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
    # The noindex rule: a noindex page's items never reach the pipelines.
    "lightsearch.crawl.middlewares.noindex.NoindexMiddleware": 800,
}
# No Referer: an origin learns nothing about which other pages a search read, and the
# default policy's URL checks ran for every candidate a document named.
REFERRER_POLICY = "no-referrer"
# In the order a request meets them on its way to the wire (a response meets them in the
# reverse order): where it may go, whether robots.txt lets it, what it may be sent as,
# whether it is already known, its decoding, then the deadline, hop and byte budgets
# (crawl/budget.py) right before the download handler, which claims the hop.
DOWNLOADER_MIDDLEWARES = {
    # Which origins a source may reach is the catalog's (Source.admits) and the redirect
    # confinement's; with no allowed_domains Scrapy's filter passes everything, after a
    # signal and a URL parse for every request scheduled.
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,
    "lightsearch.crawl.middlewares.confine.RedirectConfinementMiddleware": 50,
    # RFC 9309 with the specification's strictness (an incomplete robots.txt blocks the origin).
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "lightsearch.crawl.middlewares.robotstxt.RobotsMiddleware": 100,
    "lightsearch.crawl.middlewares.encoding.EncodingMiddleware": 550,
    "lightsearch.crawl.middlewares.discovery_cache.DiscoveryCacheMiddleware": 570,
    # The decoded-byte budget around Scrapy's decompression, whose size refusal carries a
    # code here (crawl/failures.py).
    "lightsearch.crawl.middlewares.decoded.DecodedBytesMiddleware": 580,
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
    "lightsearch.crawl.middlewares.decoded.BoundedDecompressionMiddleware": 590,
    "lightsearch.crawl.middlewares.decoded.DecompressionReserveMiddleware": 591,
    "lightsearch.crawl.middlewares.timebudget.DeadlineMiddleware": 948,
    "lightsearch.crawl.middlewares.hops.HopBudgetMiddleware": 949,
    "lightsearch.crawl.middlewares.bytebudget.ByteBudgetMiddleware": 950,
}
# The encoded-byte budget, counted as bytes arrive on the wire.
EXTENSIONS = {
    "lightsearch.crawl.extensions.encoded.EncodedByteBudget": 100,
}
ITEM_PIPELINES = {
    "lightsearch.pipelines.extract.ExtractionPipeline": 300,
    "lightsearch.pipelines.cache.RecordCachePipeline": 700,
}

# Scrapy merges DOWNLOAD_HANDLERS over this base: empty, so a deployment that replaces
# DOWNLOAD_HANDLERS cannot bring the file, data, ftp or s3 handlers back by accident.
DOWNLOAD_HANDLERS_BASE = {}

# --- lightsearch's own settings: every LIGHT_*, WEB_*, RESULT_*, BRAVE_* default comes from
# the one table in lightsearch/schema.py (type, range, doc; docs/SETTINGS.md is generated).
globals().update(_schema_defaults())
