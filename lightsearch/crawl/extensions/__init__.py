"""Crawl extensions: budgets watched through signals (bytes received)."""
