"""Shared fixtures: the offline origins server, settings that point Light at it, and a
decorator that runs ``async def`` tests on one event loop per test process.

The loop is the one lightsearch adopts as its reactor's (``crawl/runtime.py``), as an
embedding program's would be. Each coroutine test runs to its end on it with
``run_until_complete`` and a timeout, so a test that fails, hangs or raises from inside
the reactor fails alone: nothing is left stopped for the tests after it
(docs/DESIGN_CHANGES.md measures the same case on pytest-twisted's reactor in a greenlet).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from lightsearch.cache import clear_process_caches
from lightsearch.isolation import lanes, pool
from lightsearch.offline_origins.server import OfflineOrigins

# Property tests without examples of their own take 40 (the suite's time on 2 cores);
# `--hypothesis-profile thorough` runs hypothesis's default 100.
hypothesis_settings.register_profile("suite", max_examples=40)
hypothesis_settings.register_profile("thorough")
hypothesis_settings.load_profile("suite")

SHARED_DATA = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def pytest_configure(config: Any) -> None:
    """Compile the package once, before the suite starts its processes. Where
    ``PYTHONDONTWRITEBYTECODE`` is set, nothing writes bytecode, and every process the suite
    starts (the xdist workers, each command and server a test runs, their workers and fork
    servers) would compile every module it imports from source again."""
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        import compileall

        import lightsearch

        compileall.compile_dir(str(Path(lightsearch.__file__).parent), quiet=1)


def pytest_collection_finish(session: Any) -> None:
    """What collection imported lives for the whole session: it is frozen out of the
    collector's way (``gc.freeze``), so a full collection during a test walks what the tests
    made, not every module loaded."""
    gc.collect()
    gc.freeze()


# Modules whose module-scoped fixtures start servers, fleets or worlds: with ``-n`` each runs
# on one worker, so what it starts is started once (under xdist's ``load`` a module's tests
# go to every worker, and each starts its own). Every other test is scheduled on its own.
ONE_WORKER_MODULES = frozenset({
    "tests/serving/test_app.py", "tests/serving/test_connection_limits.py",
    "tests/serving/test_request_checks.py", "tests/serving/test_workers.py",
    "tests/surfaces/test_mcp_server.py", "tests/test_packaging.py", "tests/offline_origins/test_worlds.py",
    "tests/fleet/test_deadline.py", "tests/fleet/test_fleet.py", "tests/fleet/test_shapes.py",
    "tests/crawl/guard/test_redirects.py", "tests/crawl/guard/test_resolver.py", "tests/crawl/guard/test_urls.py",
    "tests/documents/test_reader_details.py", "tests/providers/test_fetch_links.py",
    "tests/isolation/test_hostile_work.py",
})


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """xdist's ``load`` distribution, but the tests of each of :data:`ONE_WORKER_MODULES`
    as one unit of work (those units are handed out first: they are the largest)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in ONE_WORKER_MODULES else nodeid

    return ModulesTogether(config, log)


# A coroutine test that has not finished by then is cancelled and fails (pytest-timeout's
# limit, set in pyproject.toml, is the backstop for a test that blocks the loop itself).
COROUTINE_TIMEOUT = 150.0
_loop: asyncio.AbstractEventLoop | None = None


def loop_of_tests() -> asyncio.AbstractEventLoop:
    """The process's one event loop for coroutine tests (and the reactor on it)."""
    global _loop
    if _loop is None or _loop.is_closed():
        _loop = asyncio.new_event_loop()
    return _loop



def coroutine_test(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run the ``async def`` test ``fn`` to its end on :func:`loop_of_tests`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        loop = loop_of_tests()
        task = loop.create_task(fn(*args, **kwargs))
        try:
            loop.run_until_complete(asyncio.wait_for(task, COROUTINE_TIMEOUT))
        finally:
            if not task.done():  # interrupted from outside the loop (pytest-timeout, ^C)
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(asyncio.wait_for(task, 10))

    return wrapper


TEST_POOL_WORKERS = 2
_pool_settings = lanes.pool_settings


def _small_pool(settings: Any) -> tuple[int, int, float]:
    workers, memory_bytes, task_secs = _pool_settings(settings)
    return min(workers, TEST_POOL_WORKERS), memory_bytes, task_secs


@pytest.fixture(scope="session", autouse=True)
def extraction_workers():
    """Each xdist process has its own extraction pool: at most two workers, not the
    default four, so the suite stays light on a shared machine; its processes end with
    the session, not with the interpreter."""
    lanes.pool_settings = _small_pool
    # Started and ready before the first test: tests that time their calls measure
    # the calls, not the fork server's first imports.
    from lightsearch.config import make_settings

    workers, memory_bytes, _ = lanes.pool_settings(make_settings())
    pool.pool_for(workers, memory_bytes).submit("warm-up", abs, (-1,), budget=60.0).result(timeout=120)
    yield
    lanes.pool_settings = _pool_settings
    pool.shutdown_pools()


@pytest.fixture(autouse=True)
def fresh_process_caches():
    """Robots and record caches are process-wide; each test starts from empty ones, since
    worlds reuse host names with different content."""
    clear_process_caches()
    yield
    clear_process_caches()


@pytest.fixture(scope="session")
def origins():
    server = OfflineOrigins().start()
    yield server
    server.stop()


@pytest.fixture
def gates():
    """Make gates for gated routes (``gate`` in offline_origins/server.py): ``gates()`` is an
    event the test sets, ``gates(n)`` a barrier that opens once n requests wait at it. A
    gate left shut holds its answer for the whole test; all are opened (a barrier broken)
    when the test ends, so no server thread outlives it."""
    made: list[threading.Event | threading.Barrier] = []

    def make(parties: int = 0) -> threading.Event | threading.Barrier:
        gate = threading.Barrier(parties) if parties else threading.Event()
        made.append(gate)
        return gate

    yield make
    for gate in made:
        if isinstance(gate, threading.Barrier):
            gate.abort()
        else:
            gate.set()


@pytest.fixture
def offline_settings(origins) -> dict[str, Any]:
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


def _process_environ(patch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """The environment a test's subprocess gets (no ``WEB_``, ``LIGHTSEARCH_``... variable of
    the shell that runs the suite), ``env`` added; and ``asyncio.run`` on the tests' one loop
    (the reactor's); the process-wide caches empty, as a new process's are."""
    clear_process_caches()
    for key in [k for k in os.environ if k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_", "TAVILY_",
                                                        "OPENROUTER_")) and k != "LIGHTSEARCH_SHARED_DATA"]:
        patch.delenv(key)
    for key, value in env.items():
        patch.setenv(key, value)
    patch.setattr(asyncio, "run", lambda coro, **_: loop_of_tests().run_until_complete(coro))


def _exit_status(exc: SystemExit, usage: int) -> int:
    return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else usage)


@pytest.fixture
def in_process(monkeypatch, capsys):
    """``in_process(*args, **env)``: ``lightsearch *args`` run by its ``main`` in this process,
    with the environment a test's subprocess gets, ``env`` added; its exit status and what it
    printed, as ``returncode``, ``stdout`` and ``stderr``. A command costs its work, not a
    process start (a second or more, several on a busy machine)."""
    from lightsearch.surfaces.cli import main

    def command(*args: str, **env: str) -> SimpleNamespace:
        with monkeypatch.context() as patch:
            _process_environ(patch, env)
            capsys.readouterr()
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse: --help, a usage error
                status = _exit_status(exc, 2)
            printed = capsys.readouterr()
        return SimpleNamespace(returncode=status, stdout=printed.out, stderr=printed.err)

    return command


@pytest.fixture
def refused_serve(in_process, monkeypatch):
    """``refused_serve(*args, **env)``: ``lightsearch serve --port 0 *args`` in this process,
    where it must refuse to start: were its checks passed, the first step of serving fails
    the test instead of listening."""
    from lightsearch.serving import app, workers

    def started(*_: Any, **__: Any) -> None:
        raise AssertionError("serve passed its checks and started")

    def command(*args: str, **env: str) -> SimpleNamespace:
        with monkeypatch.context() as patch:
            patch.setattr(app, "serve", started)
            patch.setattr(workers, "serve_workers", started)
            return in_process("serve", "--port", "0", *args, **env)

    return command


@pytest.fixture
def scrapy(monkeypatch, capsys):
    """``scrapy(*args, cwd=..., name="search", **env)``: ``scrapy NAME *args`` run by Scrapy's
    own entry point in this process, in ``cwd``, with the environment a test's subprocess
    gets, ``env`` added; its exit status and what it printed."""
    from scrapy.cmdline import execute

    def command(*args: str, cwd, name: str = "search", **env: str) -> SimpleNamespace:
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            patch.delenv("SCRAPY_SETTINGS_MODULE", raising=False)
            _process_environ(patch, env)
            capsys.readouterr()
            try:
                execute(["scrapy", name, *args])
                status = 0
            except SystemExit as exc:
                status = _exit_status(exc, 1)
            printed = capsys.readouterr()
        return SimpleNamespace(returncode=status, stdout=printed.out, stderr=printed.err)

    return command


def mapped(origins) -> list[str]:
    """The settings that take a command to the offline origins, and only there."""
    return ["-s", f"LIGHT_HOST_MAP={json.dumps(origins.host_map())}", "-s", "LIGHT_HOST_MAP_ONLY=True",
            "-s", f"LIGHT_TLS_CA_FILE={origins.ca_file}"]


@pytest.fixture
def read(origins, scrapy):
    """``read(*args, cwd=...)``: ``scrapy read`` on the offline origins, in this process."""
    def command(*args: str, cwd):
        return scrapy(*mapped(origins), *args, cwd=cwd, name="read")

    return command


def write_catalog(path: Path, sources: list[dict[str, Any]], *, version: str = "test-1") -> str:
    data = {"id": "test-catalog", "version": version, "sources": sources}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (set LIGHTSEARCH_SHARED_DATA)")
    return path


ROBOTS_ALLOW = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}


def article_html(title: str, paragraphs: list[str] | None = None, links: list[tuple[str, str]] | None = None) -> str:
    paras = paragraphs or [
        f"{title} is described here at length so that extraction finds real text.",
        f"This second paragraph about {title} adds detail, numbers such as 1901 and 42, and names.",
        f"A third paragraph closes the story of {title} with a quote and a date in 2026.",
    ]
    body = "".join(f"<p>{p}</p>" for p in paras)
    nav = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in (links or []))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><header><a href=\"/\">Home</a></header><article><h1>{title}</h1>{body}</article>"
            f"<ul>{nav}</ul><footer>Footer text</footer></body></html>")


def home_html(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    return f"<!doctype html><html><head><title>Home</title></head><body><ul>{items}</ul></body></html>"


def make_world(origins, tmp_path, sites: dict[str, dict[str, Any]], sources: list[dict[str, Any]],
               **settings: Any) -> dict[str, Any]:
    """Serve ``sites`` (host -> routes) and return settings pointing a catalog of ``sources`` at them."""
    for host, routes in sites.items():
        routes = dict(routes)
        routes.setdefault("/robots.txt", ROBOTS_ALLOW)
        origins.add_site(host, routes)
    full = []
    for i, src in enumerate(sources):
        host = src.pop("host")
        full.append({
            "name": src.get("id", f"s{i}"), "language": "en", "kind": "news",
            "origins": [f"https://{host}"], "seeds": [f"https://{host}/"], **src,
        })
    catalog = write_catalog(tmp_path / "catalog.json", full)
    target = {"http": f"127.0.0.1:{origins.http_port}", "https": f"127.0.0.1:{origins.https_port}"}
    origins.reset_log()
    return {
        **origins.settings(),
        "LIGHT_HOST_MAP": {host: target for host in origins.sites},
        "LIGHT_CATALOG": catalog,
        "LOG_LEVEL": "ERROR",
        **settings,
    }


@pytest.fixture
def switch_checks(monkeypatch):
    """How many times the kill switch is read (the real check, counted)."""
    import lightsearch.config

    read = []
    original = lightsearch.config.retrieval_switch

    def counted(*args, **kwargs):
        read.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(lightsearch.config, "retrieval_switch", counted)
    return read


# ------------------------------------------------------------------ replay servers of recorded answers
@pytest.fixture(scope="module")
def engine_replay():
    """The keyless engines' recorded answers, served on loopback (``LIGHT_HOST_MAP``)."""
    from lightsearch.offline_origins.engine_replay import EngineReplay
    server = EngineReplay(shared_data("search-provider-responses")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def brave_replay():
    """Brave's recorded API answers, served on loopback."""
    from lightsearch.offline_origins.brave_replay import BraveReplay
    server = BraveReplay(shared_data("search-provider-responses", "brave_api")).start()
    yield server
    server.stop()


async def cancel_once_reached(task: asyncio.Future, reached: Callable[[], bool], within: float = 60.0) -> None:
    """Cancel ``task`` once ``reached()`` says its request is at the server, then check that
    it ends as a ``cancelled`` LightSearchError, failing the test if it has not within
    ``within`` seconds (generous: a busy machine is slow, never stuck; what it would wait
    for otherwise is a server that never answers, or a longer timeout)."""
    from lightsearch.errors import LightSearchError

    for _ in range(int(within / 0.02)):
        await asyncio.sleep(0.02)
        if reached():
            break
    else:
        pytest.fail("the request never reached the server, so cancelling proves nothing")
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=within)
    assert done, f"the cancelled call had not ended after {within:g} s"
    with pytest.raises(asyncio.CancelledError) as info:
        await task
    assert isinstance(info.value, LightSearchError)
    assert info.value.code == "cancelled"
    assert task.cancelled()
