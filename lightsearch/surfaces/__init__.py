"""Surfaces: how people and agents reach the engine (Scrapy commands; later the MCP and HTTP servers)."""
