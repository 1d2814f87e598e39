"""Process-wide caches shared by every search: robots rules, discovery records (feeds and
sitemaps), completed documents.

Each cache is chosen by a setting naming its class, so a deployment can put a shared
store behind the same interface; the bundled ones live in process memory and are
bounded by entries, serialized bytes and lifetime, least recently used out first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.utils.misc import load_object

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


class SharedInstances:
    """Mixin: ``shared(settings)`` returns the one instance per class and bounds."""

    _shared: ClassVar[dict[tuple[Any, ...], Any]] = {}

    @classmethod
    def bounds(cls, settings: BaseSettings) -> tuple[Any, ...]:
        raise NotImplementedError

    @classmethod
    def from_settings_bounds(cls, *bounds: Any) -> Any:
        return cls(*bounds)

    @classmethod
    def shared(cls, settings: BaseSettings) -> Any:
        key = (cls, *cls.bounds(settings))
        instance = SharedInstances._shared.get(key)
        if instance is None:
            instance = SharedInstances._shared[key] = cls.from_settings_bounds(*cls.bounds(settings))
        return instance


def load_cache(settings: BaseSettings, name: str) -> Any:
    """The process-wide cache the setting ``name`` selects, or None when it is empty."""
    path = settings.get(name)
    if not path:
        return None
    return load_object(path).shared(settings)


def clear_process_caches() -> None:
    """Forget every shared cache (tests, and a deployment that swaps catalogs)."""
    from lightsearch.cache import parsed

    for instance in SharedInstances._shared.values():
        instance.clear()
    parsed.clear()
