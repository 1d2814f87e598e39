"""The request checks of ``lightsearch serve``: every request to ``/mcp`` and to
``POST /api/skills/invoke`` passes the same checks, in this order, before any route runs.

1. ``Host`` names this server (:func:`allowed_hosts`): else 421 ``invalid_host``. A DNS
   rebinding page reaches the server under the attacker's name, so it stops here.
2. ``Origin``, when a browser sends one, is the server's own or one the operator allowed
   (``WEB_SERVE_ALLOWED_ORIGINS``); ``null`` never is. A browser request without ``Origin``
   that says ``Sec-Fetch-Site: cross-site`` or ``same-site`` is refused too. Else 403
   ``forbidden_origin``.
3. The bearer token, when one is set (``LIGHTSEARCH_API_TOKEN``, at least
   :data:`MIN_TOKEN_CHARS` characters): compared in constant time; a client with
   ``WEB_SERVE_AUTH_FAILURES_PER_MINUTE`` failures in the last minute is 429 before its token
   is even read, so guessing costs a minute per few tries. Else 401 ``unauthorized``.
4. A ``POST`` body is ``application/json`` (else 415 ``unsupported_media_type``: a form or
   ``text/plain`` post, which a browser sends cross-site without asking, never runs a
   tool), at most ``WEB_INVOKE_MAX_BODY_BYTES`` (else 413 ``payload_too_large``), and JSON
   nested at most ``WEB_SERVE_MAX_JSON_DEPTH`` deep (else 400 ``invalid_json``).

A refused request never reaches a tool, so it costs no rate-limit budget. Answers on
``/mcp`` are JSON-RPC error objects (``error.data.code`` is the code above); elsewhere
they are the invoke endpoint's ``{"ok": false, "error": {...}}``.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.serving.call_limits import RateLimiter

MIN_TOKEN_CHARS = 16
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
MCP_PATH = "/mcp"
BODY_KEY = "lightsearch.json"  # the scope key of a POST's body as JSON, once the door checked it
# JSON-RPC error codes for the door's answers on /mcp (parse error, invalid request).
JSONRPC_CODES = {"invalid_json": -32700}


def client_of(scope: Scope) -> str:
    """Who is calling: the one name of a client for the rate limits, the session caps, a
    session's owner and the turns its calls take in the worker pool and for transfers.

    The peer's address (behind a proxy named in ``WEB_SERVE_FORWARDED_ALLOW_IPS``, the
    address it forwards). The bearer token does not enter it: there is one token, shared by
    every client, so it tells no two clients apart."""
    client = scope.get("client")
    return f"http:{client[0]}" if client else "http:unknown"


def refuse(scope: Scope, status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
           started: float | None = None, **details: Any) -> JSONResponse:
    """The door's (and the session limits') structured refusal for this route."""
    error = {"code": code, "message": message, "details": details}
    if scope.get("path", "").rstrip("/") == MCP_PATH:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {
            "code": JSONRPC_CODES.get(code, -32600), "message": f"{code}: {message}", "data": error}}
    else:
        ms = int((time.monotonic() - started) * 1000) if started is not None else 0
        body = {"ok": False, "error": error, "durationMs": ms}
    return JSONResponse(body, status_code=status, headers=headers)


# ---------------------------------------------------------------------------- JSON bodies
def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` deep (``[]`` is depth 1);
    walked with a stack, so the check itself never recurses."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def load_json(raw: bytes, max_depth: int) -> Any:
    """The body as JSON, or ``invalid_json``: malformed, not UTF-8, or nested deeper than
    ``max_depth`` (the parser's own recursion limit is caught as such)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        value = None
        deep = True
    except (ValueError, UnicodeDecodeError) as exc:
        raise LightSearchError("invalid_json", f"the body is not JSON: {quote_untrusted(str(exc), 80)}") from None
    else:
        deep = json_depth_exceeds(value, max_depth)
    if deep:
        raise LightSearchError("invalid_json", f"the body's JSON nests deeper than {max_depth} levels",
                               {"maxDepth": max_depth})
    return value


class BodyTooLarge(Exception):
    pass


class ClientGone(Exception):
    pass


async def read_body(receive: Receive, limit: int, declared: str | None = None) -> bytes:
    """The whole request body, at most ``limit`` bytes (:class:`BodyTooLarge` past it, as
    soon as it is declared or received); :class:`ClientGone` if the client hangs up."""
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def is_json_type(value: str | None) -> bool:
    return (value or "").split(";", 1)[0].strip().lower() == "application/json"


# ---------------------------------------------------------------------------- hosts and origins
def _canonical_name(name: str) -> str:
    name = name.strip().lower().rstrip(".")
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return name
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def split_host(value: str) -> tuple[str, int | None] | None:
    """``Host``-style ``name[:port]`` as (canonical name, port); None when malformed."""
    value = value.strip()
    if not value or any(c in value for c in "/\\@?# \t"):
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[:end + 1], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif value.count(":") > 1:  # a bare IPv6 address
        name, port_text = value, None
    else:
        name, _, port_text = value.partition(":")
        port_text = port_text if ":" in value else None
    if port_text is not None and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        return None
    if not name:
        return None
    return _canonical_name(name), int(port_text) if port_text is not None else None


def is_loopback(host: str) -> bool:
    name = _canonical_name(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_unspecified
    except ValueError:
        return host.strip() == ""


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> set[tuple[str, int | None]]:
    """The (name, port) pairs ``Host`` may carry (port None: any): the bind address, the
    loopback names when it is loopback or a wildcard, and the operator's ``extra``."""
    names: set[tuple[str, int | None]] = set()
    if is_loopback(bind) or is_wildcard(bind):
        names.update((n, None) for n in LOOPBACK_NAMES)
    if not is_wildcard(bind):
        names.add((_canonical_name(bind), None))
    for entry in (str(e).strip() for e in extra):
        if not entry:
            continue
        parsed = split_host(entry)
        if parsed is None:
            raise LightSearchError("invalid_settings", f"setting WEB_SERVE_ALLOWED_HOSTS: {quote_untrusted(entry)} "
                                   "is not a host name or host:port", {"key": "WEB_SERVE_ALLOWED_HOSTS"})
        names.add(parsed)
    return names


def _origin(value: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or \
            parts.query or parts.fragment or parts.username is not None:
        return None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return parts.scheme, _canonical_name(host), port or (443 if parts.scheme == "https" else 80)


def allowed_origins(entries: Iterable[str]) -> set[tuple[str, str, int]]:
    out = set()
    for entry in (str(e).strip() for e in entries):
        if not entry:
            continue
        parsed = _origin(entry)
        if parsed is None:
            raise LightSearchError("invalid_settings", f"setting WEB_SERVE_ALLOWED_ORIGINS: "
                                   f"{quote_untrusted(entry)} is not an origin (scheme://host[:port])",
                                   {"key": "WEB_SERVE_ALLOWED_ORIGINS"})
        out.add(parsed)
    return out


def check_token(token: str | None) -> None:
    """A token that is set must be long enough to resist guessing."""
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise LightSearchError(
            "invalid_settings", f"LIGHTSEARCH_API_TOKEN must be at least {MIN_TOKEN_CHARS} characters (it has "
            f"{len(token)}); make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'",
            {"variable": "LIGHTSEARCH_API_TOKEN", "minChars": MIN_TOKEN_CHARS})


# ---------------------------------------------------------------------------- the door
class FrontDoor:
    """ASGI middleware in front of every route (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, hosts: set[tuple[str, int | None]], port: int,
                 origins: set[tuple[str, str, int]] | None = None, token: str | None = None,
                 max_body_bytes: int = 64 * 1024, max_json_depth: int = 32,
                 auth_failures_per_minute: int = 10) -> None:
        check_token(token)
        self.app = app
        self.hosts = hosts
        self.port = port
        self.origins = origins or set()
        self.token = token.encode() if token else None
        self.max_body = max_body_bytes
        self.max_depth = max_json_depth
        self.failures = RateLimiter({"auth": auth_failures_per_minute}, max_clients=4096)

    @classmethod
    def from_settings(cls, app: ASGIApp, settings: Any, *, bind: str, port: int, token: str | None) -> FrontDoor:
        return cls(app, hosts=allowed_hosts(bind, settings.getlist("WEB_SERVE_ALLOWED_HOSTS")), port=port,
                   origins=allowed_origins(settings.getlist("WEB_SERVE_ALLOWED_ORIGINS")), token=token,
                   max_body_bytes=settings.getint("WEB_INVOKE_MAX_BODY_BYTES"),
                   max_json_depth=settings.getint("WEB_SERVE_MAX_JSON_DEPTH"),
                   auth_failures_per_minute=settings.getint("WEB_SERVE_AUTH_FAILURES_PER_MINUTE"))

    def host_ok(self, headers: Headers) -> bool:
        values = headers.getlist("host")
        parsed = split_host(values[0]) if len(values) == 1 else None
        return parsed is not None and ((parsed[0], None) in self.hosts or parsed in self.hosts)

    def origin_ok(self, headers: Headers) -> bool:
        values = headers.getlist("origin")
        if not values:
            return headers.get("sec-fetch-site", "").strip().lower() not in ("cross-site", "same-site")
        parsed = _origin(values[0]) if len(values) == 1 else None
        if parsed is None:
            return False  # "null" (sandboxed frames, file: pages) and anything malformed
        scheme, name, port = parsed
        own = scheme == "http" and port == self.port and ((name, None) in self.hosts or (name, port) in self.hosts)
        return own or parsed in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets are not served (uvicorn runs with ws="none")
            return
        started = time.monotonic()
        headers = Headers(scope=scope)
        if not self.host_ok(headers):
            shown = quote_untrusted(headers.get("host", ""))
            await refuse(scope, 421, "invalid_host", f"this server does not answer to Host {shown}; the operator "
                         "can allow a name with WEB_SERVE_ALLOWED_HOSTS (--allowed-hosts)", started=started,
                         host=shown)(scope, receive, send)
            return
        if not self.origin_ok(headers):
            if "origin" in headers:
                shown = quote_untrusted(headers["origin"])
                message = f"requests from origin {shown} are not allowed"
            else:
                shown = quote_untrusted(headers.get("sec-fetch-site", ""))
                message = f"a browser request from another site (Sec-Fetch-Site {shown}) is not allowed"
            await refuse(scope, 403, "forbidden_origin", f"{message}; the operator can allow an origin with "
                         "WEB_SERVE_ALLOWED_ORIGINS", started=started, origin=shown)(scope, receive, send)
            return
        if self.token is not None and not await self._authorized(scope, receive, send, headers, started):
            return
        if scope.get("method") == "POST":
            checked = await self._json_body(scope, receive, send, headers, started)
            if checked is None:
                return
            receive, body = checked
            scope = {**scope, BODY_KEY: body}  # read once: the session caps look at it
        await self.app(scope, receive, send)

    async def _authorized(self, scope: Scope, receive: Receive, send: Send, headers: Headers,
                          started: float) -> bool:
        client = client_of(scope)
        retry = self.failures.blocked(client, "auth")
        if retry is not None:
            limit = self.failures.limits["auth"]
            await refuse(scope, 429, "rate_limited", f"more than {limit} failed token attempts per minute from "
                         f"this client; retry in {retry:.0f} s", headers={"Retry-After": str(max(1, round(retry)))},
                         started=started, kind="auth", limitPerMinute=limit,
                         retryAfterSecs=round(retry, 1))(scope, receive, send)
            return False
        scheme, _, given = headers.get("authorization", "").encode("latin-1").partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token or b""):
            return True
        self.failures.record(client, "auth")
        await refuse(scope, 401, "unauthorized", "a valid bearer token is required", started=started,
                     headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
        return False

    async def _json_body(self, scope: Scope, receive: Receive, send: Send, headers: Headers,
                         started: float) -> tuple[Receive, Any] | None:
        """Read and check the body; a ``receive`` that replays it and the JSON value, or
        None once refused."""
        if not is_json_type(headers.get("content-type")):
            shown = quote_untrusted(headers.get("content-type", ""))
            await refuse(scope, 415, "unsupported_media_type", f"the body must be application/json, not {shown}",
                         started=started, contentType=shown)(scope, receive, send)
            return None
        try:
            raw = await read_body(receive, self.max_body, headers.get("content-length"))
            value = load_json(raw, self.max_depth)
        except ClientGone:
            return None
        except BodyTooLarge:
            await refuse(scope, 413, "payload_too_large", f"the request body exceeds {self.max_body} bytes",
                         started=started, limitBytes=self.max_body)(scope, receive, send)
            return None
        except LightSearchError as exc:
            await refuse(scope, 400, exc.code, exc.message, started=started, **exc.details)(scope, receive, send)
            return None
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        return replay, value
