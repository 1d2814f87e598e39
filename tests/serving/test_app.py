"""POST /api/skills/invoke over real HTTP on loopback (``lightsearch serve`` in a subprocess),
and the app ``serve`` builds driven in this process where its door is what is tested (the
kill switch, the token, turns by client)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.conftest import coroutine_test
from tests.held_origins import QUICK_URL, HeldPages
from tests.surfaces.test_mcp_server import Served, clean_env, world

TOKEN = "test-token-0123456789abcdef"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy


def post(url: str, body: bytes | dict, token: str | None = None, path: str = "/api/skills/invoke") -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url + path, data=data, headers=headers, method="POST")
    try:
        with OPENER.open(request, timeout=120) as response:  # a busy machine is slow, never stuck
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def served(origins):
    server = Served([*world(origins), "-s", "WEB_INVOKE_MAX_BODY_BYTES=2048"], clean_env())
    yield server.url
    server.stop()


def test_search_ok(served):
    status, body = post(served, {"name": "web.search", "input": {"query": "NASA artemis moon", "maxResults": 2}})
    assert status == 200
    assert body["ok"] is True
    assert isinstance(body["durationMs"], int)
    assert 1 <= len(body["output"]["hits"]) <= 2
    assert body["output"]["provider"] == "light"


def test_fetch_ok_and_tool_failure(served):
    status, body = post(served, {"name": "web.fetch", "input": {"url": "https://www.nasa.gov/", "max_length": 20}})
    assert status == 200
    assert len(body["output"]["content"]) <= 20
    status, body = post(served, {"name": "web.fetch", "input": {"url": "http://10.0.0.1/"}})
    assert status == 200  # the request was fine; the URL is refused
    assert body["ok"] is False
    assert body["error"]["code"] in ("blocked_address", "invalid_url")


@pytest.mark.parametrize(("body", "status", "code"), [
    (b"{not json", 400, "invalid_json"),
    (b"[1, 2]", 400, "invalid_request"),
    ({"input": {"query": "x"}}, 400, "invalid_request"),
    ({"name": "web.search", "input": "x"}, 400, "invalid_request"),
    ({"name": "web.browse", "input": {}}, 400, "unknown_tool"),
    ({"name": "web.search", "input": {"query": ""}}, 400, "invalid_input"),
    ({"name": "web.search", "input": {"query": "x", "colour": "red"}}, 400, "invalid_input"),
    ({"name": "web.fetch", "input": {}}, 400, "invalid_input"),
    ({"name": "web.search", "input": {"query": "x" * 3000}}, 413, "payload_too_large"),
])
def test_bad_requests_are_structured(served, body, status, code):
    got, answer = post(served, body)
    assert got == status
    assert answer["ok"] is False
    assert answer["error"]["code"] == code
    assert answer["error"]["message"]
    assert "durationMs" in answer


async def post_to(app: Any, body: dict, token: str | None = None, path: str = "/api/skills/invoke") -> tuple[int, Any]:
    """``post`` to the ASGI app ``serve`` builds, in this process (what is tested is the app's
    door; a served process is the module's ``served``)."""
    import httpx2

    headers = {"authorization": f"Bearer {token}"} if token else {}
    transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 40000))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", timeout=120) as client:
        response = await client.post(path, json=body, headers=headers)
    return response.status_code, response.json()


@contextlib.asynccontextmanager
async def app_of(origins, token: str | None = None) -> Any:
    from lightsearch.serving.app import build_app
    from lightsearch.surfaces.toolbox import Toolbox

    async with Toolbox({**origins.settings(), "LOG_LEVEL": "ERROR"}) as toolbox:
        yield build_app(toolbox, host="127.0.0.1", port=8765, token=token)


@coroutine_test
async def test_disabled(origins, monkeypatch):
    monkeypatch.setenv("WEB_RETRIEVAL_ENABLED", "false")  # read at each call's door
    async with app_of(origins) as app:
        status, body = await post_to(app, {"name": "web.search", "input": {"query": "x"}})
    assert status == 403
    assert body["error"]["code"] == "disabled"


@coroutine_test
async def test_token_required_when_configured(origins):
    async with app_of(origins, token=TOKEN) as app:
        missing = await post_to(app, {"name": "web.search", "input": {"query": "x"}})
        wrong = await post_to(app, {"name": "web.search", "input": {"query": "x"}}, token="guess")
        mcp = await post_to(app, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, path="/mcp")
        ok = await post_to(app, {"name": "web.fetch", "input": {"url": "https://www.nasa.gov/", "maxChars": 40}},
                           token=TOKEN)
    for status, body in (missing, wrong):
        assert status == 401
        assert body["error"]["code"] == "unauthorized"
    assert mcp[0] == 401
    assert mcp[1]["error"]["data"]["code"] == "unauthorized"  # a JSON-RPC error on /mcp
    assert ok[0] == 200
    assert ok[1]["ok"] is True


def test_non_loopback_bind_without_token_refuses_to_start(refused_serve):
    done = refused_serve("--host", "0.0.0.0")
    assert done.returncode == 2
    assert "LIGHTSEARCH_API_TOKEN" in done.stderr


def test_health_answers_get(served):
    with OPENER.open(urllib.request.Request(served + "/health"), timeout=30) as response:
        assert response.status == 200
        body = json.loads(response.read())
    assert body["status"] == "ok"
    assert body["tools"] == ["web_search", "web_news", "web_fetch"]


# ------------------------------------------------------------------ fairness per client
async def invoke_as(app: Any, address: str, body: dict[str, Any]) -> tuple[int, Any]:
    """One invoke call to the ASGI app in this process, from ``address``."""
    import httpx2

    transport = httpx2.ASGITransport(app=app, client=(address, 40000))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", timeout=120) as client:
        response = await client.post("/api/skills/invoke", json=body)
    return response.status_code, response.json()


@pytest.mark.parametrize("in_flight", [None, 0])  # the default; no limit on a client's calls at once
@coroutine_test
async def test_a_clients_many_calls_do_not_hold_another_clients_call(origins, in_flight):
    """Client A's six fetches are all waiting on their origins; client B's one fetch is
    served in its turn, while they still wait, and not after them."""
    from lightsearch.serving.app import build_app
    from lightsearch.surfaces.toolbox import Toolbox

    pages = HeldPages(origins, 6)
    overrides = {**origins.settings(), "LOG_LEVEL": "ERROR"}
    if in_flight is not None:
        overrides["WEB_TOOLS_CALLS_IN_FLIGHT"] = in_flight  # the transfers' turns alone
    toolbox = Toolbox(overrides)
    app = build_app(toolbox, host="127.0.0.1", port=8765)
    a_calls = [asyncio.ensure_future(invoke_as(app, "127.0.0.51", {"name": "web.fetch", "input": {"url": url}}))
               for url in pages.urls]
    try:
        await pages.until_held(2)  # two of A's transfers hold their slots at their origins
        b_call = asyncio.ensure_future(invoke_as(app, "127.0.0.52", {"name": "web.fetch",
                                                                      "input": {"url": QUICK_URL}}))
        done, _ = await asyncio.wait({b_call}, timeout=60)  # a backstop: B is served in moments
        a_ended_first = sum(call.done() for call in a_calls)
        held_while_b_ran = pages.held()
    finally:
        pages.let_go()
    a_answers = await asyncio.gather(*a_calls)
    await toolbox.aclose()
    assert b_call in done, "B's call was not served while A's calls waited"
    assert a_ended_first == 0, "B's call was served only once A's calls had given up"
    status, answer = b_call.result()
    assert (status, answer["ok"]) == (200, True)
    assert "Tide tables" in answer["output"]["title"]
    assert held_while_b_ran == 2  # A kept to its share of the transfers meanwhile
    assert all(status == 200 and answer["ok"] for status, answer in a_answers)


# ------------------------------------------------------------------ /mcp, built as the server starts
async def asgi_get(app: Any, path: str) -> tuple[int, bytes]:
    """One GET through ``app`` as the server would make it: the status and the body."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app({"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
               "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": [],
               "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765)}, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def lazy_app(build):
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from lightsearch.serving.app import LazyMcp

    async def health(request):
        return PlainTextResponse("ok")

    mcp = LazyMcp(build)
    return Starlette(routes=[Route("/mcp", mcp), Route("/health", health)], lifespan=mcp.lifespan)


@coroutine_test
async def test_the_other_routes_answer_while_mcp_is_built_and_mcp_waits_for_it():
    import threading
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    release = threading.Event()
    running: list[str] = []

    @asynccontextmanager
    async def sessions(_app):  # the SDK app's session manager
        running.append("started")
        yield
        running.append("stopped")

    async def mcp(request):
        return PlainTextResponse("mcp")

    def build():
        release.wait(60)  # the SDK's import, on its thread
        return Starlette(routes=[Route("/mcp", mcp)], lifespan=sessions)

    app = lazy_app(build)
    async with app.router.lifespan_context(app):
        assert await asgi_get(app, "/health") == (200, b"ok")  # answered while /mcp is being built
        waiting = asyncio.ensure_future(asgi_get(app, "/mcp"))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the request waits for the app, it is not refused
        release.set()
        assert await asyncio.wait_for(waiting, 60) == (200, b"mcp")
        assert running == ["started"]
    assert running == ["started", "stopped"]  # the session manager ends with the server


@coroutine_test
async def test_mcp_that_cannot_be_built_is_503_and_the_rest_is_served(capfd):
    def build():
        raise ImportError("no module named mcp")

    app = lazy_app(build)
    async with app.router.lifespan_context(app):
        status, body = await asgi_get(app, "/mcp")
        assert status == 503
        assert json.loads(body)["error"]["code"] == "unavailable"
        assert await asgi_get(app, "/health") == (200, b"ok")
    assert "MCP is not served: ImportError: no module named mcp" in capfd.readouterr().err
