"""Configuration from the environment: the variables agent deployments set, mapped
onto rows of the one settings table (:mod:`lightsearch.schema`).

Each variable is checked against the row it feeds, and a bad value is ``invalid_settings``
naming the *variable* (a deployment sets ``WEB_FETCH_TIMEOUT_MS``, not
``WEB_FETCH_DEADLINE_SECS``). Only the variables of :data:`VARIABLES` are read: an
unrelated ``WEB_SOMETHING`` in a shell must not break a server.

Precedence, lowest first: schema defaults < environment < command line (``-s KEY=VALUE``,
``--max-results``, ...) < the explicit argument of one call (a tool argument, a keyword
of :func:`lightsearch.surfaces.toolbox.dispatch`). :func:`resolve` merges the first three.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.schema import BY_KEY, check_value

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}
# Where WEB_SEARCH_API_KEY goes, by the provider WEB_SEARCH_PROVIDER names.
KEY_OF_PROVIDER = {"brave": "BRAVE_SEARCH_API_KEY", "tavily": "WEB_SEARCH_TAVILY_API_KEY",
                   "openrouter": "WEB_SEARCH_OPENROUTER_API_KEY"}
TOKEN_VARIABLE = "LIGHTSEARCH_API_TOKEN"


def env_error(variable: str, message: str, value: Any = None) -> LightSearchError:
    return LightSearchError("invalid_settings", f"environment variable {variable}: {message}",
                            {"variable": variable, "value": quote_untrusted(value) if value is not None else None})


def _bool(variable: str, raw: str) -> bool:
    low = raw.strip().lower()
    if low in TRUE:
        return True
    if low in FALSE:
        return False
    raise env_error(variable, f"must be true or false, got {quote_untrusted(raw)}", raw)


def _row(variable: str, key: str, value: Any) -> Any:
    """Check ``value`` against the row of ``key``; the error names the variable."""
    try:
        check_value(BY_KEY[key], value)
    except LightSearchError as exc:
        message = exc.message.split(": ", 1)[-1]
        raise env_error(variable, message + (f" (it sets {key})" if key != variable else ""), value) from None
    spec = BY_KEY[key]
    if spec.type == "int":
        return int(str(value).strip())
    if spec.type == "float":
        return float(value)
    if spec.type == "bool":
        return _bool(variable, str(value))
    return value


def _same(key: str) -> Callable[[str, str], dict[str, Any]]:
    return lambda variable, raw: {key: _row(variable, key, raw.strip())}


def _no_web(variable: str, raw: str) -> dict[str, Any]:
    return {"WEB_RETRIEVAL_ENABLED": False} if _bool(variable, raw) else {}


def _timeout_ms(variable: str, raw: str) -> dict[str, Any]:
    spec = BY_KEY["WEB_FETCH_DEADLINE_SECS"]
    try:
        ms = float(raw.strip())
    except ValueError:
        raise env_error(variable, f"must be a number of milliseconds, got {quote_untrusted(raw)}", raw) from None
    if not spec.low * 1000 <= ms <= spec.high * 1000:
        raise env_error(variable, f"must be between {spec.low * 1000:g} and {spec.high * 1000:g} ms, got {ms:g}",
                        raw)
    return {"WEB_FETCH_DEADLINE_SECS": ms / 1000}


def _cache_ttl(variable: str, raw: str) -> dict[str, Any]:
    try:
        ttl = float(raw.strip())
    except ValueError:
        raise env_error(variable, f"must be a number of seconds, got {quote_untrusted(raw)}", raw) from None
    if ttl < 0:
        raise env_error(variable, f"must not be negative, got {ttl:g}", raw)
    # The rows' upper bounds are the longest lifetimes the freshness rules allow.
    keys = ("LIGHT_PAGE_MAX_AGE_SECS", "LIGHT_DISCOVERY_MAX_AGE_SECS", "WEB_SEARCH_CACHE_TTL_SECS")
    return {key: min(ttl, BY_KEY[key].high) for key in keys}


def _region(variable: str, raw: str) -> dict[str, Any]:
    value = raw.strip().lower()
    parts = value.split("-")
    if len(parts) != 2 or not all(p.isalpha() and 2 <= len(p) <= 3 for p in parts):
        raise env_error(variable, f"must be country-language such as us-en or il-he, got {quote_untrusted(raw)}",
                        raw)
    return {"WEB_SEARCH_REGION": value}


@dataclass(frozen=True)
class Variable:
    name: str
    feeds: str  # the settings it sets, for the table in docs/CONFIGURATION.md
    doc: str
    parse: Callable[[str, str], dict[str, Any]]


VARIABLES: tuple[Variable, ...] = (
    Variable("WEB_RETRIEVAL_ENABLED", "WEB_RETRIEVAL_ENABLED",
             "false hides every web tool and stops every search and fetch, on every surface",
             _same("WEB_RETRIEVAL_ENABLED")),
    Variable("LIGHTSEARCH_NO_WEB", "WEB_RETRIEVAL_ENABLED=false", "1 is the kill switch (same as above)", _no_web),
    Variable("WEB_SEARCH_PROVIDER", "WEB_SEARCH_PROVIDER", "light, brave, auto, fallback, an engine, or a class path",
             _same("WEB_SEARCH_PROVIDER")),
    Variable("WEB_SEARCH_API_KEY", "the key of that provider", "BRAVE_SEARCH_API_KEY for brave (or no provider "
             "named), TAVILY_API_KEY for tavily, OPENROUTER_API_KEY for openrouter", lambda v, r: {}),
    Variable("WEB_SEARCH_MAX_RESULTS", "WEB_SEARCH_MAX_RESULTS", "maxResults when a call does not say (1-20)",
             _same("WEB_SEARCH_MAX_RESULTS")),
    Variable("WEB_SEARCH_REGION", "WEB_SEARCH_REGION", "country-language, e.g. il-he", _region),
    Variable("WEB_FETCH_MAX_CHARS", "WEB_FETCH_MAX_CHARS", "web_fetch maxChars when a call does not say",
             _same("WEB_FETCH_MAX_CHARS")),
    Variable("WEB_FETCH_TIMEOUT_MS", "WEB_FETCH_DEADLINE_SECS", "a fetch's hard deadline in ms", _timeout_ms),
    Variable("WEB_CACHE_TTL_SECS", "LIGHT_PAGE_MAX_AGE_SECS, LIGHT_DISCOVERY_MAX_AGE_SECS, WEB_SEARCH_CACHE_TTL_SECS",
             "longest cache lifetime (capped at 1800 s for pages, 300 s for discovery, 3600 s for engine "
             "answers; 0: no reuse)", _cache_ttl),
    Variable("BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_API_KEY", "a key selects Brave unless a provider is named",
             _same("BRAVE_SEARCH_API_KEY")),
    Variable("TAVILY_API_KEY", "WEB_SEARCH_TAVILY_API_KEY", "the Tavily key",
             _same("WEB_SEARCH_TAVILY_API_KEY")),
    Variable("OPENROUTER_API_KEY", "WEB_SEARCH_OPENROUTER_API_KEY", "the OpenRouter key",
             _same("WEB_SEARCH_OPENROUTER_API_KEY")),
    Variable("WEB_TOOLS_SEARCHES_PER_MINUTE", "WEB_TOOLS_SEARCHES_PER_MINUTE", "per client; 0: no limit",
             _same("WEB_TOOLS_SEARCHES_PER_MINUTE")),
    Variable("WEB_TOOLS_FETCHES_PER_MINUTE", "WEB_TOOLS_FETCHES_PER_MINUTE", "per client; 0: no limit",
             _same("WEB_TOOLS_FETCHES_PER_MINUTE")),
    Variable("WEB_TOOLS_CALLS_IN_FLIGHT", "WEB_TOOLS_CALLS_IN_FLIGHT", "a served client's calls at once (the "
             "rest wait their turn); 0: no limit", _same("WEB_TOOLS_CALLS_IN_FLIGHT")),
    Variable("LIGHTSEARCH_SOURCES", "LIGHT_CATALOG_EXTRA", "your own sources (`lightsearch sources add`); "
             "default: $XDG_CONFIG_HOME/lightsearch/sources.json when it exists", _same("LIGHT_CATALOG_EXTRA")),
)


def config_dir(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path | None:
    """lightsearch's folder in the platform's configuration directory: on Linux and other
    Unix ``$XDG_CONFIG_HOME/lightsearch`` (``~/.config/lightsearch``), on macOS
    ``~/Library/Application Support/lightsearch``, on Windows ``%APPDATA%\\lightsearch``;
    None when the environment names no home. (The XDG rule and the two others are all
    there is to it: the ``platformdirs`` package is not a dependency.)"""
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    home = env.get("HOME") or env.get("USERPROFILE")
    if platform.startswith("win"):
        base = env.get("APPDATA") or (str(Path(home) / "AppData" / "Roaming") if home else "")
    elif platform == "darwin":
        base = str(Path(home) / "Library" / "Application Support") if home else ""
    else:
        base = env.get("XDG_CONFIG_HOME") or (str(Path(home) / ".config") if home else "")
    return Path(base) / "lightsearch" if base else None


def default_user_catalog(environ: Mapping[str, str] | None = None) -> Path | None:
    """The user catalog, ``sources.json`` in :func:`config_dir`; None without a home."""
    folder = config_dir(environ)
    return folder / "sources.json" if folder else None


def default_user_summary(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where ``lightsearch sources describe`` writes the bundled catalog's descriptions
    (``catalog.summary.json`` in :func:`config_dir`): never into the installed package."""
    folder = config_dir(environ)
    return folder / "catalog.summary.json" if folder else None


def command_line(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The settings of ``-s KEY=VALUE`` options, each read and checked against its row of
    the settings table (:func:`lightsearch.schema.from_text`): a value its row cannot take
    is ``invalid_settings`` naming the key. A key that is neither ours nor one of
    Scrapy's (or of lightsearch's Scrapy settings module) is refused, with the closest
    known key, rather than silently ignored."""
    from lightsearch.schema import PREFIXES, from_text

    out: dict[str, Any] = {}
    for key, text in pairs:
        if key.startswith(PREFIXES):
            out[key] = from_text(key, text)
            continue
        known = _scrapy_keys()
        if key not in known:
            close = difflib.get_close_matches(key, [*known, *BY_KEY], n=1, cutoff=0.6)
            raise LightSearchError("invalid_settings", f"unknown setting {quote_untrusted(key)}"
                                   + (f" (did you mean {close[0]}?)" if close else ""),
                                   {"key": quote_untrusted(key), **({"didYouMean": close[0]} if close else {})})
        out[key] = text
    return out


def _scrapy_keys() -> set[str]:
    """Scrapy's setting names and those of lightsearch's Scrapy settings module (imported
    only when a command line names a setting that is not ours)."""
    from scrapy.settings import default_settings

    from lightsearch import settings as ours

    return {k for module in (default_settings, ours) for k in dir(module) if k.isupper() and not k.startswith("_")}


def settings_from_environ(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings the environment sets. Blank variables count as unset (containers often
    pass ``VAR=`` for "no value")."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for var in VARIABLES:
        raw = env.get(var.name)
        if raw is None or not raw.strip():
            continue
        out.update(var.parse(var.name, raw))
    return out


def resolve(cmdline: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Defaults < environment < command line: the engine overrides a surface runs with."""
    env = os.environ if environ is None else environ
    merged = settings_from_environ(env)
    merged.update(cmdline or {})
    if not merged.get("LIGHT_CATALOG_EXTRA"):
        # the sources `lightsearch sources add` wrote, when there are some
        user = default_user_catalog(env)
        if user is not None and user.is_file():
            merged["LIGHT_CATALOG_EXTRA"] = str(user)
    if merged.get("LIGHT_SOURCE_SUMMARY") is None and not merged.get("LIGHT_CATALOG"):
        # the bundled catalog's descriptions `lightsearch sources describe` rebuilt, when it did
        summary = default_user_summary(env)
        if summary is not None and summary.is_file():
            merged["LIGHT_SOURCE_SUMMARY"] = str(summary)
    _provider_key(merged, env)
    region = merged.get("WEB_SEARCH_REGION")
    if isinstance(region, str) and region.count("-") == 1:
        country, language = region.lower().split("-")
        if country != "wt":  # wt-wt: DuckDuckGo's "no region"
            merged.setdefault("BRAVE_COUNTRY", country)
            merged.setdefault("BRAVE_SEARCH_LANG", language)
    return merged


def _provider_key(merged: dict[str, Any], env: Mapping[str, str]) -> None:
    """Route WEB_SEARCH_API_KEY to the key of the provider WEB_SEARCH_PROVIDER names; a
    provider-specific variable or setting wins over it, and a key provider without a key is
    refused here, naming the variables that would fix it."""
    provider = merged.get("WEB_SEARCH_PROVIDER")
    name = provider.strip().lower() if isinstance(provider, str) and provider.strip() else None
    generic = (env.get("WEB_SEARCH_API_KEY") or "").strip()
    if generic:
        if name is not None and name != "auto" and name not in KEY_OF_PROVIDER:
            raise env_error("WEB_SEARCH_API_KEY", f"is set, but WEB_SEARCH_PROVIDER={quote_untrusted(provider)} "
                            "takes no key")
        key = KEY_OF_PROVIDER.get(name or "brave", "BRAVE_SEARCH_API_KEY")
        if not merged.get(key):
            merged[key] = generic
    if name in ("tavily", "openrouter"):
        key = KEY_OF_PROVIDER[name]
        if not (isinstance(merged.get(key), str) and merged[key].strip()):
            variable = {"tavily": "TAVILY_API_KEY", "openrouter": "OPENROUTER_API_KEY"}[name]
            raise env_error(variable, f"WEB_SEARCH_PROVIDER is {name} but neither {variable} nor "
                            "WEB_SEARCH_API_KEY is set")


def api_token(environ: Mapping[str, str] | None = None) -> str | None:
    """The bearer token of ``lightsearch serve`` (never a setting: it is a secret)."""
    raw = (os.environ if environ is None else environ).get(TOKEN_VARIABLE, "")
    return raw.strip() or None


def markdown_table() -> str:
    """The environment table of docs/CONFIGURATION.md (a test keeps the page in step with it)."""
    lines = ["| variable | sets | meaning |", "| --- | --- | --- |"]
    for var in VARIABLES:
        lines.append(f"| `{var.name}` | {var.feeds} | {var.doc} |")
    lines.append(f"| `{TOKEN_VARIABLE}` | (serve only) | bearer token for `lightsearch serve`, at least 16 characters; required off loopback |")
    return "\n".join(lines)
