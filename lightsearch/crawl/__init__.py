"""Crawl: one bounded Scrapy crawl (scheduler, downloader middlewares, extensions, the transport and its guard, politeness, budgets, TLS). Nothing here knows about providers or surfaces."""
