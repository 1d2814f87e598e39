"""Search providers behind one contract, and the rule that picks one when the tools load.

Every provider takes the same call (``query`` or ``queries``, ``max_results``,
``recency``, and the call's filters: ``include_domains``, ``exclude_domains``, ``region``,
``after``, ``before``, see :mod:`lightsearch.filters`), declared once by
:class:`lightsearch.providers.search_call.SearchingProvider`, whose door makes it a
:class:`~lightsearch.plan.request.SearchRequest` and checks the kill switch; the bundled
providers implement ``search_request(request)``. All return the same result envelope, so
tool surfaces, the renderer and the receipts never ask which provider answered; the envelope's ``provider`` field says
it for people. The choice is made once, at load, because an agent must not see a
different engine from one call to the next, and a failing Brave call must fail rather
than quietly turn into a Light search with different coverage.

Selection:

* ``WEB_SEARCH_PROVIDER`` names a provider explicitly: ``light``, ``brave``, a mode of
  the engines (``auto``/``fused``, ``fallback``), one engine (``duckduckgo``,
  ``wikipedia``, ``hn``, ``reddit``, ``news``, ``searxng``, ``tavily``, ``openrouter``;
  :mod:`lightsearch.providers.engines`), or a class path;
* otherwise a trimmed, non-empty Brave key selects Brave, an absent or blank key Light.
  The key comes from plugin-style config (``braveSearchApiKey``), else the
  ``BRAVE_SEARCH_API_KEY`` setting, else the environment variable of that name.

The bundled providers (and web_fetch's reader) are built, entered and closed alike: they
share one base, :class:`lightsearch.providers.lifecycle.Provider`. A provider of one's own
needs only the :class:`SearchProvider` contract.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from lightsearch.config import check_door, read_at_door
from lightsearch.errors import LightSearchError
from lightsearch.schema import validate

PROVIDERS = {
    "light": "lightsearch.providers.light.LightSearch",
    "brave": "lightsearch.providers.brave.BraveSearch",
}

# Plugin-style (camelCase JSON) configuration names and the settings they stand for.
PLUGIN_CONFIG_KEYS = {
    "braveSearchApiKey": "BRAVE_SEARCH_API_KEY",
    "webSearchProvider": "WEB_SEARCH_PROVIDER",
}

KEY_SETTING = "BRAVE_SEARCH_API_KEY"

# Settings a surface (e.g. ``scrapy search``) hands to :func:`load_provider`; the rest of
# a Scrapy settings object holds Scrapy's own defaults, which must not override ours.
SETTING_PREFIXES = ("LIGHT_", "BRAVE_", "WEB_SEARCH_", "WEB_FETCH_", "WEB_NEWS_", "RESULT_", "WEB_RETRIEVAL_")
ENGINE_MODES = ("auto", "fused", "fallback", "duckduckgo", "ddg", "ddg_html", "ddg_lite", "wikipedia", "hn",
                "reddit", "news", "google_news", "searxng", "tavily", "openrouter")


@runtime_checkable
class SearchProvider(Protocol):
    """What a web_search backend offers: one async search returning the common envelope.

    The call's keywords are those of :meth:`SearchingProvider.search
    <lightsearch.providers.search_call.SearchingProvider.search>`; a provider of one's own may
    subclass it and implement ``search_request(request)``. Failures raise
    :class:`~lightsearch.errors.LightSearchError`; cancellation raises
    :class:`~lightsearch.errors.SearchCancelled`. ``provider`` is the name the envelope
    reports. The front door passes a filter only when the call gives it, so a provider of
    one's own that takes none still serves calls without filters.
    """

    provider: str

    async def search(self, query: str | Sequence[str] | None = None, **options: Any) -> dict[str, Any]: ...


def _settings(overrides: Mapping[str, Any] | Settings | None,
              config: Mapping[str, Any] | None) -> Settings:
    """Settings built once by a surface are used as they are (copied only when plugin-style
    configuration or a key is added to them); overrides are built into settings here."""
    from lightsearch.config import make_settings

    if isinstance(overrides, Settings):
        settings = overrides.copy() if config else overrides
    else:
        settings = make_settings(overrides)
    for name, key in PLUGIN_CONFIG_KEYS.items():
        if config and config.get(name) is not None:
            settings.set(key, config[name], priority="cmdline")
    return settings


def brave_api_key(settings: Settings, environ: Mapping[str, str] | None = None) -> str | None:
    """The trimmed Brave key, or None when it is absent or blank.

    A key given in settings (even a blank one) wins over the environment, so a
    deployment can switch Brave off by configuring an empty key.
    """
    raw = settings.get(KEY_SETTING)
    if raw is None:
        raw = (os.environ if environ is None else environ).get(KEY_SETTING)
    if not isinstance(raw, str):
        return None
    key = raw.strip()
    return key or None


def provider_name(settings: Settings, environ: Mapping[str, str] | None = None) -> str:
    """The provider the settings select: the explicit one, else by the Brave key rule."""
    explicit = settings.get("WEB_SEARCH_PROVIDER")
    if isinstance(explicit, str) and explicit.strip():
        return explicit.strip()
    if explicit is not None and not isinstance(explicit, str):
        raise LightSearchError("invalid_settings", "WEB_SEARCH_PROVIDER must be a provider name",
                               {"key": "WEB_SEARCH_PROVIDER", "value": repr(explicit)[:80]})
    return "brave" if brave_api_key(settings, environ) else "light"


def load_provider(
    overrides: Mapping[str, Any] | Settings | None = None,
    *,
    config: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SearchProvider:
    """Build the web_search provider for this process (or tool instance), once.

    ``overrides`` are Scrapy settings; ``config`` is plugin-style camelCase configuration
    (``braveSearchApiKey``, ``webSearchProvider``) that takes precedence over them;
    ``environ`` replaces ``os.environ`` for the key lookup (tests). Light settings are
    not validated here, so bad ones can never keep Brave from loading.
    """
    settings = _settings(overrides, config)
    check_door(settings, environ)  # the kill switch, before anything is built
    with read_at_door():  # the provider built below does not read it again
        return _build(settings, overrides, environ)


def _build(settings: Settings, overrides: Mapping[str, Any] | Settings | None,
           environ: Mapping[str, str] | None) -> SearchProvider:
    validate(settings, ("WEB_SEARCH_",))
    name = provider_name(settings, environ)
    if name.lower() in ENGINE_MODES:
        from lightsearch.providers.engines.modes import EngineSearch

        return EngineSearch(settings, name.lower(), environ=None if environ is None else dict(environ))
    path = PROVIDERS.get(name.lower(), name)
    if "." not in path:
        raise LightSearchError(
            "invalid_settings", f"unknown web search provider {name!r}",
            {"key": "WEB_SEARCH_PROVIDER", "value": name[:80], "allowed": sorted([*PROVIDERS, *ENGINE_MODES])},
        )
    try:
        cls = load_object(path)
    except (ImportError, AttributeError, ValueError, NameError) as exc:
        raise LightSearchError(
            "invalid_settings", f"web search provider {name!r} cannot be loaded: {exc}",
            {"key": "WEB_SEARCH_PROVIDER", "value": name[:80]},
        ) from None
    if name.lower() == "brave":
        key = brave_api_key(settings, environ)
        if key is None:
            raise LightSearchError(
                "invalid_settings", "WEB_SEARCH_PROVIDER is brave but no Brave API key is set",
                {"key": KEY_SETTING},
            )
        if settings is overrides:  # the caller's object is not ours to change
            settings = settings.copy()
        settings.set(KEY_SETTING, key, priority="cmdline")
    return cls(settings)
