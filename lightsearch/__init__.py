"""lightsearch: keyless web search and page reading for AI agents, built on Scrapy.

The public API is :data:`__all__`; everything else is reached through these names or is
internal. The names are imported lazily, so ``import lightsearch`` stays cheap and imports
nothing of Scrapy's crawler machinery before a caller had the chance to install the
reactor it wants.
"""

from lightsearch.errors import LightSearchError, SearchCancelled

__all__ = [
    "Client",             # the same tools as blocking calls: scripts, threads, notebooks
    "LightSearch",        # Light: await LightSearch.from_settings(...).search("query")
    "LightSearchError",   # every expected failure, with .code (docs/ERRORS.md)
    "SearchCancelled",    # a cancelled call (also an asyncio.CancelledError)
    "Toolbox",            # the three agent tools over one configuration
    "WebFetch",           # web_fetch: await WebFetch.from_settings(...).fetch(url)
    "definitions",        # tool schemas for a model (openai, anthropic, mcp)
    "dispatch",           # run one tool call
    "load_provider",      # the search provider the configuration selects
    "repair",             # recover tool calls a model wrote as text
]
__version__ = "0.1.0"

_LAZY = {
    "Client": "lightsearch.surfaces.client",
    "LightSearch": "lightsearch.providers.light",
    "WebFetch": "lightsearch.providers.fetch",
    "load_provider": "lightsearch.providers",
    "Toolbox": "lightsearch.surfaces.toolbox",
    "definitions": "lightsearch.surfaces.toolbox",
    "dispatch": "lightsearch.surfaces.toolbox",
    "repair": "lightsearch.surfaces.toolbox",
}


def __getattr__(name: str):
    if name == "tools":  # lightsearch.tools.definitions() / dispatch() / repair()
        from lightsearch.surfaces import toolbox

        return toolbox
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
