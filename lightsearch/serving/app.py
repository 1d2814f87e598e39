"""``lightsearch serve``: one ASGI app (Starlette) with the MCP streamable HTTP endpoint
(``/mcp``), the invoke endpoint (``POST /api/skills/invoke``) and ``GET /health``
(``{"status": "ok", "version", "tools"}``: the process answers; ``tools`` is empty while
the kill switch is off).

``{"name": "web.search" | "web.news" | "web.fetch", "input": {...}}`` answers
``{"ok": true, "output": <envelope>, "durationMs": N}`` or ``{"ok": false, "error":
{"code", "message", "details"}, "durationMs": N}``. Bad JSON, a wrong request shape, an
unknown tool and schema violations are 400; an oversized body 413; a body that is not
``application/json`` 415; a missing or wrong bearer token 401; the kill switch 403
(``disabled``); the rate limit 429; other tool failures 200 with ``ok: false`` (the
request was fine, the web was not).

Both routes sit behind the request checks (:mod:`lightsearch.serving.request_checks`: Host,
Origin, token, JSON bodies), the MCP sessions behind per-client caps
(:mod:`lightsearch.serving.sessions`), and every connection under read timeouts and a
cap (:mod:`lightsearch.serving.connection_limits`). Forwarded headers are believed only from
the proxies the operator names (``WEB_SERVE_FORWARDED_ALLOW_IPS``). With
``LIGHTSEARCH_API_TOKEN`` set every request needs ``Authorization: Bearer <token>``; a
server bound to a non-loopback address without a token refuses to start. docs/SECURITY.md
has the whole model.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.serving.request_checks import (
    MCP_PATH,
    BodyTooLarge,
    ClientGone,
    FrontDoor,
    allowed_hosts,
    allowed_origins,
    check_token,
    client_of,
    is_json_type,
    is_loopback,
    load_json,
    read_body,
)
from lightsearch.surfaces.toolbox import Toolbox
from lightsearch.surfaces.tools import INVOKE_NAMES

STATUS = {"invalid_json": 400, "invalid_request": 400, "unknown_tool": 400, "invalid_input": 400,
          "payload_too_large": 413, "unsupported_media_type": 415, "unauthorized": 401, "disabled": 403,
          "rate_limited": 429}


def _answer(started: float, error: dict[str, Any] | None = None, output: Any = None) -> JSONResponse:
    ms = int((time.monotonic() - started) * 1000)
    if error is None:
        return JSONResponse({"ok": True, "output": output, "durationMs": ms})
    headers = {}
    if error["code"] == "rate_limited":
        headers["Retry-After"] = str(max(1, round(error.get("details", {}).get("retryAfterSecs", 1))))
    return JSONResponse({"ok": False, "error": error, "durationMs": ms}, status_code=STATUS.get(error["code"], 200),
                        headers=headers)


def _error(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "details": details}


def invoke_endpoint(toolbox: Toolbox, *, max_body_bytes: int | None = None) -> Any:
    """The ``POST`` handler (a Starlette endpoint) for one toolbox. It checks its own body
    (type, size, JSON depth) too, for apps that mount it without the request checks."""
    limit = max_body_bytes or toolbox.settings.getint("WEB_INVOKE_MAX_BODY_BYTES")
    depth = toolbox.settings.getint("WEB_SERVE_MAX_JSON_DEPTH")

    async def invoke(request: Request) -> JSONResponse:
        started = time.monotonic()
        if not is_json_type(request.headers.get("content-type")):
            shown = quote_untrusted(request.headers.get("content-type", ""))
            return _answer(started, _error("unsupported_media_type", f"the body must be application/json, not {shown}",
                                           contentType=shown))
        try:
            body = load_json(await read_body(request.receive, limit, request.headers.get("content-length")), depth)
        except ClientGone:
            return _answer(started, _error("invalid_request", "the client closed the connection"))
        except BodyTooLarge:
            return _answer(started, _error("payload_too_large", f"the request body exceeds {limit} bytes",
                                           limitBytes=limit))
        except LightSearchError as exc:
            return _answer(started, exc.to_dict()["error"])
        if not isinstance(body, dict) or not isinstance(body.get("name"), str) or \
                not isinstance(body.get("input", {}), dict):
            return _answer(started, _error("invalid_request", 'the body must be {"name": "web.search" | '
                                           '"web.news" | "web.fetch", "input": {...}}'))
        name = body["name"]
        if name not in INVOKE_NAMES and name not in INVOKE_NAMES.values():
            return _answer(started, _error("unknown_tool", f"unknown tool {quote_untrusted(name)}",
                                           tool=quote_untrusted(name), known=list(INVOKE_NAMES)))
        try:
            output = await toolbox.call(name, body.get("input", {}), client=client_of(request.scope))
        except LightSearchError as exc:
            return _answer(started, exc.to_dict()["error"])
        return _answer(started, output=output)

    return invoke


def invoke_app(toolbox: Toolbox, *, max_body_bytes: int | None = None) -> Starlette:
    """A Starlette app serving ``POST /invoke``: mount it where you like, e.g.
    ``Mount("/api/skills", app=invoke_app(toolbox))`` gives ``/api/skills/invoke``."""
    return Starlette(routes=[Route("/invoke", invoke_endpoint(toolbox, max_body_bytes=max_body_bytes),
                                   methods=["POST"])])


def health_endpoint(toolbox: Toolbox) -> Any:
    """``GET /health``: that the server answers, its version and the tools it offers."""
    from lightsearch import __version__

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__, "tools": [t.name for t in toolbox.tools()]})

    return health


def transport_security(hosts: set[tuple[str, int | None]], origins: set[tuple[str, str, int]], port: int) -> Any:
    """The SDK's own Host/Origin check, given the door's lists explicitly (left to itself it
    protects only 127.0.0.1, localhost and ::1, and nothing on any other bind address). The
    door runs first; this list admits every spelling the door admits."""
    from mcp.server.transport_security import TransportSecuritySettings

    spellings = {(n, p) for name, p in hosts for n in ({name, name + "."} if name[-1:].isalpha() else {name})}
    allowed_hosts = [f"{n}:*" if p is None else f"{n}:{p}" for n, p in spellings]
    allowed_hosts += [n for n, p in spellings if p is None]
    allowed_origins = [f"http://{n}:{port}" for n, p in spellings if p in (None, port)]
    for scheme, name, p in origins:
        allowed_origins.append(f"{scheme}://{name}:{p}")
        if p == {"http": 80, "https": 443}[scheme]:
            allowed_origins.append(f"{scheme}://{name}")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=sorted(allowed_hosts),
                                     allowed_origins=sorted(allowed_origins))


def build_app(toolbox: Toolbox, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None) -> ASGIApp:
    """``/mcp`` (streamable HTTP), ``/api/skills/invoke`` and ``/health`` in one app, behind the
    request checks.

    ``host`` and ``port``: the address the server is bound to (the Host names it answers to
    follow from it)."""
    from lightsearch.serving.sessions import SessionLimits

    settings = toolbox.settings
    limit = settings.getint("WEB_INVOKE_MAX_BODY_BYTES")
    hosts = allowed_hosts(host, settings.getlist("WEB_SERVE_ALLOWED_HOSTS"))
    origins = allowed_origins(settings.getlist("WEB_SERVE_ALLOWED_ORIGINS"))
    mcp = LazyMcp(functools.partial(mcp_app, toolbox, host=host, port=port, limit=limit, hosts=hosts,
                                    origins=origins))
    app = Starlette(routes=[Route(MCP_PATH, mcp),
                            Mount("/api/skills", app=invoke_app(toolbox, max_body_bytes=limit)),
                            Route("/health", health_endpoint(toolbox), methods=["GET"])],
                    lifespan=mcp.lifespan)
    return FrontDoor.from_settings(SessionLimits.from_settings(app, settings), settings, bind=host, port=port,
                                   token=token)


def mcp_app(toolbox: Toolbox, *, host: str, port: int, limit: int, hosts: set[tuple[str, int | None]],
            origins: set[tuple[str, str, int]]) -> Starlette:
    """The MCP SDK's streamable HTTP app (its own route, ``/mcp``, and its session manager)."""
    from lightsearch.surfaces.mcp_server import build_server

    settings = toolbox.settings
    return build_server(toolbox).streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, max_request_body_size=limit,
        transport_security=transport_security(hosts, origins, port),
        session_idle_timeout=settings.getfloat("WEB_SERVE_SESSION_IDLE_SECS"),
        max_sessions=settings.getint("WEB_SERVE_MAX_SESSIONS"))


class LazyMcp:
    """``/mcp``: the MCP SDK's app, built on a thread as the server starts, so that the
    server answers its other routes at once (importing the SDK and its models takes a
    second or two of CPU) and the event loop is not held meanwhile. A request to ``/mcp``
    before it is built waits for it; if it cannot be built, ``/mcp`` answers 503 and the
    other routes go on. Its session manager runs for the app's lifespan."""

    def __init__(self, build: Callable[[], Starlette]) -> None:
        self.build = build
        self.app: Starlette | None = None
        self._ready: asyncio.Event | None = None

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Any) -> AsyncIterator[None]:
        self._ready = asyncio.Event()
        stop = asyncio.Event()
        running = asyncio.ensure_future(self._run(self._ready, stop))
        try:
            yield
        finally:
            stop.set()
            await running

    async def _run(self, ready: asyncio.Event, stop: asyncio.Event) -> None:
        try:
            app = await asyncio.to_thread(self.build)
        except Exception as exc:  # a broken installation: the other routes still answer
            print(f"lightsearch: MCP is not served: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            ready.set()
            return
        if stop.is_set():
            ready.set()
            return
        async with app.router.lifespan_context(app):
            self.app = app
            ready.set()
            await stop.wait()
        self.app = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._ready is None:  # mounted in an app that runs no lifespan
            raise RuntimeError("the /mcp endpoint needs its app's lifespan (LazyMcp.lifespan)")
        await self._ready.wait()
        if self.app is None:
            await JSONResponse({"error": {"code": "unavailable", "message": "MCP is not served by this process"}},
                               status_code=503)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def check_bind(host: str, token: str | None) -> None:
    check_token(token)
    if not is_loopback(host) and not token:
        raise LightSearchError(
            "invalid_settings", f"refusing to serve on {quote_untrusted(host)} without a token: set "
            "LIGHTSEARCH_API_TOKEN, or bind a loopback address (127.0.0.1)", {"variable": "LIGHTSEARCH_API_TOKEN"})


def forwarded_allow_ips(settings: Any) -> list[str]:
    """The proxies whose forwarded headers are believed, each checked: an address, a
    network, or ``*`` (every peer: only behind a proxy that is the sole way in)."""
    entries = [str(e).strip() for e in settings.getlist("WEB_SERVE_FORWARDED_ALLOW_IPS") if str(e).strip()]
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise LightSearchError(
                "invalid_settings", f"--forwarded-allow-ips: {quote_untrusted(entry)} is not an address or network",
                {"key": "WEB_SERVE_FORWARDED_ALLOW_IPS", "flag": "--forwarded-allow-ips"}) from None
    return entries


def check_serving(settings: Any, host: str) -> None:
    """Refuse bad serving settings before any worker starts (invalid_settings names them)."""
    from lightsearch.schema import validate

    validate(settings, ("WEB_SERVE_", "WEB_INVOKE_"))
    allowed_hosts(host, settings.getlist("WEB_SERVE_ALLOWED_HOSTS"))
    allowed_origins(settings.getlist("WEB_SERVE_ALLOWED_ORIGINS"))
    forwarded_allow_ips(settings)


def uvicorn_config(app: ASGIApp, settings: Any) -> Any:
    """uvicorn's configuration for one server process, every limit explicit."""
    import uvicorn

    from lightsearch.serving.connection_limits import ConnectionTable

    proxies = forwarded_allow_ips(settings)
    return uvicorn.Config(
        app, log_level="warning", loop="none", lifespan="on", timeout_graceful_shutdown=2, ws="none",
        http=ConnectionTable.from_settings(settings).protocol(),
        # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or [],
    )


async def serve(toolbox: Toolbox, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
                announce: Any = None, sock: socket.socket | None = None) -> None:
    """Serve until interrupted, on the running loop (the engines' reactor joins it).

    ``sock``: an already listening socket (a worker of ``serve --workers``), announced by
    its supervisor."""
    import uvicorn

    from lightsearch.serving.workers import listening_socket

    check_bind(host, token)
    worker = sock is not None
    sock = sock or listening_socket(host, port)
    bound = sock.getsockname()[1]
    try:
        config = uvicorn_config(build_app(toolbox, host=host, port=bound, token=token), toolbox.settings)
    except BaseException:
        sock.close()
        await toolbox.aclose()
        raise
    server = uvicorn.Server(config)
    if not worker:
        shown = f"[{host}]" if ":" in host else host
        print(f"lightsearch serving on http://{shown}:{bound} (MCP: /mcp, invoke: POST /api/skills/invoke, "
              "GET /health)",
              file=announce or sys.stderr, flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        await toolbox.aclose()
