"""Shared fixtures: the offline origins server, settings that point Light at it, and a
decorator that runs ``async def`` tests as Deferreds under pytest-twisted's asyncio
reactor (``@pytest_twisted.ensureDeferred`` cannot await ``AsyncCrawlerRunner``)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_from_coro

from offline_origins.server import OfflineOrigins

SHARED_DATA = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def coroutine_test(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        return deferred_from_coro(fn(*args, **kwargs))

    return wrapper


@pytest.fixture(scope="session")
def origins():
    server = OfflineOrigins().start()
    yield server
    server.stop()


@pytest.fixture
def offline_settings(origins) -> dict[str, Any]:
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


def write_catalog(path: Path, sources: list[dict[str, Any]], *, version: str = "test-1") -> str:
    data = {"id": "test-catalog", "version": version, "sources": sources}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (set LIGHTSEARCH_SHARED_DATA)")
    return path
