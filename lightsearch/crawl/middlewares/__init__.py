"""Downloader middlewares of a Light crawl, in the order their priorities give them."""
