"""The MCP server driven by the SDK's own client: over stdio (``lightsearch mcp`` as a
subprocess), over streamable HTTP (``lightsearch serve`` on loopback), and in this process
over the SDK's in-memory transport where what is tested is the server, not its transport."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import asynccontextmanager
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from lightsearch.surfaces.tools import INSTRUCTIONS
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test
from tests.held_origins import QUICK_URL, HeldPages, name_hosts

CLI = [sys.executable, "-m", "lightsearch.surfaces.cli"]


def setting_args(settings: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in settings.items():
        text = value if isinstance(value, str) else json.dumps(value)
        out += ["-s", f"{key}={text}"]
    return out


def world(origins) -> list[str]:
    """The test process's offline origins (with a slow page, and the held origins' names)
    as command-line settings."""
    origins.add_site("slow.example", {"/robots.txt": ROBOTS_ALLOW,
                                      "/": {"body": article_html("Slow page"), "type": "text/html", "delay": 1.5}})
    name_hosts(origins)
    return setting_args({**origins.settings(), "LOG_LEVEL": "ERROR"})


def clean_env(**extra: str) -> dict[str, str]:
    """The environment a test's process gets: none of the shell's settings, but where the
    shared data is (it changes no behaviour, only what a data-reading command can read)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_", "TAVILY_", "OPENROUTER_"))
           or k == "LIGHTSEARCH_SHARED_DATA"}
    return {**env, **extra}


@asynccontextmanager
async def stdio_session(args: list[str], env: dict[str, str] | None = None):
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", *args], env=env or clean_env())
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            yield session, init


@asynccontextmanager
async def memory_session(cmdline: dict[str, Any], *, offline: bool = False):
    """The MCP server ``lightsearch mcp`` builds (``cmdline``: its ``-s`` settings), in this
    process, driven by the SDK's client over its in-memory transport."""
    from mcp.client import Client

    from lightsearch.surfaces.mcp_server import build_server
    from lightsearch.surfaces.toolbox import DeferredToolbox

    toolbox = DeferredToolbox({"LOG_LEVEL": "ERROR", **cmdline}, offline=offline)
    try:
        async with Client(build_server(toolbox)) as client:
            yield client
    finally:
        await toolbox.aclose()


def check_structured(tools: dict[str, Any], name: str, result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.content
    data = result.structured_content
    errors = list(Draft202012Validator(tools[name].output_schema).iter_errors(data))
    assert errors == [], [e.message for e in errors]
    assert result.content[0].type == "text"
    assert result.content[0].text == data["text"]
    return data


async def exercise(session: Any) -> None:
    """The checks both transports must pass."""
    listed = await session.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert sorted(tools) == ["web_fetch", "web_news", "web_search"]
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.annotations.read_only_hint is True

    search = await session.call_tool("web_search", {"query": "NASA artemis moon", "maxResults": 2})
    data = check_structured(tools, "web_search", search)
    assert 1 <= len(data["hits"]) <= 2
    assert "EXTERNAL_DATA" in data["text"]

    page = await session.call_tool("web_fetch", {"url": "https://www.nasa.gov/", "max_length": 50})
    data = check_structured(tools, "web_fetch", page)
    assert len(data["content"]) <= 50

    pages = await session.call_tool("web_fetch", {"urls": ["https://www.nasa.gov/", "http://169.254.169.254/"],
                                                  "max_length": 80})
    data = check_structured(tools, "web_fetch", pages)
    assert [("error" in r) for r in data["results"]] == [False, True]
    assert len(data["results"][0]["content"]) <= 80
    assert pages.content[0].text.startswith("web_fetch read 2 URLs")

    bad = await session.call_tool("web_search", {"query": "x", "maxResults": 99})
    assert bad.is_error is True
    assert bad.structured_content["error"]["code"] == "invalid_input"
    assert bad.content[0].text.startswith("ERROR: invalid_input")

    unknown = await session.call_tool("web_browse", {"url": "https://www.nasa.gov/"})
    assert unknown.is_error is True
    assert unknown.structured_content["error"]["code"] == "unknown_tool"

    blocked = await session.call_tool("web_fetch", {"url": "http://169.254.169.254/latest/meta-data/"})
    assert blocked.is_error is True
    assert blocked.structured_content["error"]["code"] in ("blocked_address", "invalid_url")

    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    slow = await session.call_tool("web_fetch", {"url": "https://slow.example/"}, progress_callback=on_progress)
    assert slow.is_error is False
    assert progress, "a call longer than a second reports progress"
    assert progress[0][0] >= 1
    assert "web_fetch" in progress[0][1]


@coroutine_test
async def test_stdio_server(origins):
    async with stdio_session(world(origins)) as (session, init):
        assert init.instructions == INSTRUCTIONS
        assert init.server_info.name == "lightsearch"
        await exercise(session)


@coroutine_test
async def test_a_disabled_server_lists_no_tools(origins, monkeypatch):
    monkeypatch.setenv("LIGHTSEARCH_NO_WEB", "1")
    async with memory_session(origins.settings()) as session:
        assert (await session.list_tools()).tools == []
        result = await session.call_tool("web_search", {"query": "x"})
    assert result.is_error is True
    assert result.structured_content["error"]["code"] == "disabled"


@coroutine_test
async def test_stdio_offline_flag_and_the_rate_limit():
    env = clean_env(WEB_TOOLS_FETCHES_PER_MINUTE="1")
    async with stdio_session(["--offline"], env) as (session, _):
        found = await session.call_tool("web_search", {"query": "europa clipper", "maxResults": 1})
        first = await session.call_tool("web_fetch", {"url": "https://www.nasa.gov/"})
        second = await session.call_tool("web_fetch", {"url": "https://www.nasa.gov/"})
    assert found.is_error is False
    assert found.structured_content["provider"] == "light"
    assert first.is_error is False
    assert second.is_error is True  # an error result, not a protocol error
    assert second.structured_content["error"]["code"] == "rate_limited"


# ------------------------------------------------------------------ streamable HTTP
class Served:
    def __init__(self, args: list[str], env: dict[str, str], **popen: Any) -> None:
        self.proc = subprocess.Popen([*CLI, "serve", "--port", "0", *args], env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, **popen)
        line = self.proc.stderr.readline()
        if "serving on http://" not in line:
            self.proc.kill()
            rest = self.proc.communicate(timeout=30)[1]
            raise AssertionError(f"the server did not start: {line}{rest[-2000:]}")
        self.url = line.split("serving on ", 1)[1].split(" ", 1)[0]
        # keep reading what the server prints, so a full pipe never blocks it, and so a
        # failing test can show it
        self.printed: list[str] = []
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.printed.append(f"{time.monotonic():.3f} {line.rstrip()}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._drain.join(timeout=5)
        self.proc.stderr.close()


@pytest.fixture(scope="module")
def http_server(origins):
    server = Served(world(origins), clean_env())
    yield server
    server.stop()


@coroutine_test
async def test_streamable_http_server(http_server):
    async with streamable_http_client(f"{http_server.url}/mcp") as (read, write), \
            ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.instructions == INSTRUCTIONS
        await exercise(session)


@asynccontextmanager
async def session_from(url: str, address: str):
    """An SDK client session whose connections come from ``address`` (a client of its own)."""
    import httpx2

    transport = httpx2.AsyncHTTPTransport(local_address=address)
    async with httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(120)) as http, \
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@coroutine_test
async def test_http_tool_calls_take_turns_by_client(http_server, origins):
    """One agent's six web_fetch calls all wait on their origins; another agent's call is
    served in its turn, while they still wait."""
    pages = HeldPages(origins)
    async with session_from(http_server.url, "127.0.0.61") as a, session_from(http_server.url, "127.0.0.62") as b:
        a_calls = [asyncio.ensure_future(a.call_tool("web_fetch", {"url": url})) for url in pages.urls]
        try:
            await pages.until_held(2)
            b_call = asyncio.ensure_future(b.call_tool("web_fetch", {"url": QUICK_URL, "max_length": 200}))
            done, _ = await asyncio.wait({b_call}, timeout=60)  # a backstop: B is served in moments
            a_ended_first = sum(call.done() for call in a_calls)
            held_while_b_ran = pages.held()
        finally:
            pages.let_go()
        a_results = await asyncio.gather(*a_calls)
    assert b_call in done, "B's call was not served while A's calls waited"
    assert a_ended_first == 0, "B's call was served only once A's calls had given up"
    assert b_call.result().is_error is False
    assert held_while_b_ran == 2  # A kept to its share of the transfers
    assert [r.is_error for r in a_results] == [False] * len(pages.urls)
