"""Spiders (installed as ``lightsearch.spiders``): catalog discovery for one search, and the single-page fetch."""
