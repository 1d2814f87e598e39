"""``lightsearch serve``: one ASGI app (Starlette) with the MCP streamable HTTP endpoint
(``/mcp``) and the invoke endpoint of seed 001 (``POST /api/skills/invoke``).

``{"name": "web.search" | "web.news" | "web.fetch", "input": {...}}`` answers
``{"ok": true, "output": <envelope>, "durationMs": N}`` or ``{"ok": false, "error":
{"code", "message", "details"}, "durationMs": N}``. Bad JSON, a wrong request shape, an
unknown tool and schema violations are 400; an oversized body 413; a missing or wrong
bearer token 401; the kill switch 403 (``disabled``); the rate limit 429; other tool
failures 200 with ``ok: false`` (the request was fine, the web was not).

With ``LIGHTSEARCH_API_TOKEN`` set every request needs ``Authorization: Bearer <token>``;
a server bound to a non-loopback address without a token refuses to start.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import sys
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.surfaces.tools import INVOKE_NAMES, Toolbox

STATUS = {"invalid_json": 400, "invalid_request": 400, "unknown_tool": 400, "invalid_input": 400,
          "payload_too_large": 413, "unauthorized": 401, "disabled": 403, "rate_limited": 429}


class _TooLarge(Exception):
    pass


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


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def invoke_endpoint(toolbox: Toolbox, *, max_body_bytes: int | None = None) -> Any:
    """The ``POST`` handler (a Starlette endpoint) for one toolbox."""
    limit = max_body_bytes or toolbox.settings.getint("WEB_INVOKE_MAX_BODY_BYTES")

    async def invoke(request: Request) -> JSONResponse:
        started = time.monotonic()
        try:
            raw = await _body(request, limit)
        except _TooLarge:
            return _answer(started, _error("payload_too_large", f"the request body exceeds {limit} bytes",
                                           limitBytes=limit))
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            return _answer(started, _error("invalid_json", f"the body is not JSON: {quote_untrusted(str(exc), 80)}"))
        if not isinstance(body, dict) or not isinstance(body.get("name"), str) or \
                not isinstance(body.get("input", {}), dict):
            return _answer(started, _error("invalid_request", 'the body must be {"name": "web.search" | '
                                           '"web.news" | "web.fetch", "input": {...}}'))
        name = body["name"]
        if name not in INVOKE_NAMES and name not in INVOKE_NAMES.values():
            return _answer(started, _error("unknown_tool", f"unknown tool {quote_untrusted(name)}",
                                           tool=quote_untrusted(name), known=list(INVOKE_NAMES)))
        peer = request.client.host if request.client else "unknown"
        try:
            output = await toolbox.call(name, body.get("input", {}), client=f"http:{peer}")
        except LightSearchError as exc:
            return _answer(started, exc.to_dict()["error"])
        return _answer(started, output=output)

    return invoke


def invoke_app(toolbox: Toolbox, *, max_body_bytes: int | None = None) -> Starlette:
    """A Starlette app serving ``POST /invoke``: mount it where you like, e.g.
    ``Mount("/api/skills", app=invoke_app(toolbox))`` gives ``/api/skills/invoke``."""
    return Starlette(routes=[Route("/invoke", invoke_endpoint(toolbox, max_body_bytes=max_body_bytes),
                                   methods=["POST"])])


class BearerToken:
    """Every request must carry ``Authorization: Bearer <token>`` (compared in constant time)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, given = header.partition(b" ")
        if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.token):
            response = JSONResponse({"ok": False, "error": _error("unauthorized", "a valid bearer token is required"),
                                     "durationMs": 0}, status_code=401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def build_app(toolbox: Toolbox, *, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    """``/mcp`` (streamable HTTP) and ``/api/skills/invoke`` in one app."""
    from lightsearch.surfaces.mcp_server import build_server

    limit = toolbox.settings.getint("WEB_INVOKE_MAX_BODY_BYTES")
    server = build_server(toolbox)
    app = server.streamable_http_app(
        streamable_http_path="/mcp", host=host, max_request_body_size=limit,
        custom_starlette_routes=[Mount("/api/skills", app=invoke_app(toolbox, max_body_bytes=limit))],
    )
    return BearerToken(app, token) if token else app


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    if not is_loopback(host) and not token:
        raise LightSearchError(
            "invalid_settings", f"refusing to serve on {quote_untrusted(host)} without a token: set "
            "LIGHTSEARCH_API_TOKEN, or bind a loopback address (127.0.0.1)", {"variable": "LIGHTSEARCH_API_TOKEN"})


async def serve(toolbox: Toolbox, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
                announce: Any = None, sock: socket.socket | None = None) -> None:
    """Serve until interrupted, on the running loop (the engines' reactor joins it).

    ``sock``: an already listening socket (a worker of ``serve --workers``), announced by
    its supervisor."""
    import uvicorn

    from lightsearch.surfaces.workers import listening_socket

    check_bind(host, token)
    worker = sock is not None
    sock = sock or listening_socket(host, port)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(build_app(toolbox, host=host, token=token), log_level="warning", loop="none",
                            lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    if not worker:
        shown = f"[{host}]" if ":" in host else host
        print(f"lightsearch serving on http://{shown}:{bound} (MCP: /mcp, invoke: POST /api/skills/invoke)",
              file=announce or sys.stderr, flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        await toolbox.aclose()
