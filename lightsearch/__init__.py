"""lightsearch: keyless web search and page reading for AI agents, built on Scrapy."""

from lightsearch.errors import LightSearchError

__all__ = ["LightSearch", "LightSearchError", "WebFetch"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # Imported lazily: importing Scrapy's crawler machinery must not happen before a
    # caller had the chance to install the reactor it wants.
    if name == "LightSearch":
        from lightsearch.providers.light import LightSearch

        return LightSearch
    if name == "WebFetch":
        from lightsearch.providers.fetch import WebFetch

        return WebFetch
    if name == "tools":  # lightsearch.tools.definitions() / dispatch() / repair()
        from lightsearch.surfaces import tools

        return tools
    raise AttributeError(name)
