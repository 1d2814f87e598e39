"""The MCP sessions of ``/mcp``: each belongs to the client that opened it, and is capped
per client address and per server process.

The SDK's session manager caps the total (``max_sessions``) and closes a session idle for
``session_idle_timeout``; both are passed to it explicitly (``WEB_SERVE_MAX_SESSIONS``,
``WEB_SERVE_SESSION_IDLE_SECS``). It knows nothing of clients, so this ASGI layer in front
of it keeps a table of the sessions, each with the client that opened it
(:func:`~lightsearch.serving.request_checks.client_of`), from the ``mcp-session-id`` of every
successful opening request:

- **A session answers only its client.** A request (POST, GET or DELETE) with a session id
  the table does not hold for this client is 404, the SDK's own "Session not found": the
  same answer as for an id that never existed, so another client learns nothing and can
  neither use nor close it.
- **Room is made from the least used sessions.** A client at
  ``WEB_SERVE_MAX_SESSIONS_PER_CLIENT`` loses one of its own sessions with no request in
  flight (one client's flood only ever closes its own sessions); at ``WEB_SERVE_MAX_SESSIONS``
  in all, the client holding the most sessions loses one. The one closed is the lowest of:
  a session idle past the idle time (the SDK has ended it or is about to), one that never
  went past the handshake (``initialize``, ``notifications/initialized``), one that asked
  for something else (``tools/list``, a GET stream, ...), one that called a tool; the least
  recently used first among equals. So a flood of ``initialize`` from an agent's own
  address closes the flood's sessions, never the agent's session in use.
- With no idle session to close, the new session is refused (429 ``too_many_sessions`` for
  the client's cap, 503 for the total), with ``Retry-After``.

What a request asks is read from its body as the request checks read it
(:data:`~lightsearch.serving.request_checks.BODY_KEY`). A session is closed the way a client
closes it, with ``DELETE /mcp`` and its id, sent to the SDK's app in process. The table
forgets a session on that DELETE, on its client's own DELETE, and when the SDK answers 404
for its id (it expired or ended).
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lightsearch.serving.request_checks import BODY_KEY, MCP_PATH, client_of, refuse

SESSION_HEADER = "mcp-session-id"
RETRY_AFTER_SECS = 5
HANDSHAKE = frozenset({"initialize", "notifications/initialized"})
# What a session has done, the least first: room is made from the lowest.
EXPIRED, OPENED, ASKED, CALLED = -1, 0, 1, 2


@dataclass
class Session:
    client: str
    in_flight: int = 0
    use: int = OPENED
    last: float = field(default_factory=time.monotonic)  # when a request of it last ended


def use_of(scope: Scope) -> int:
    """What a request on an open session says of its use: only the handshake (``OPENED``),
    a tool call (``CALLED``), or anything else (``ASKED``: a GET stream, ``tools/list``,
    a body the door did not read)."""
    if scope.get("method") != "POST" or BODY_KEY not in scope:
        return ASKED
    body = scope[BODY_KEY]
    messages = body if isinstance(body, list) else [body]
    methods = [m.get("method") if isinstance(m, dict) and isinstance(m.get("method"), str) else None
               for m in messages]
    if "tools/call" in methods:
        return CALLED
    return OPENED if methods and all(m is not None and m in HANDSHAKE for m in methods) else ASKED


def session_not_found() -> Response:
    """The SDK's answer to a session id it does not hold, word for word."""
    from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError

    body = JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message="Session not found"))
    return Response(body.model_dump_json(by_alias=True, exclude_unset=True), status_code=404,
                    media_type="application/json")


class SessionLimits:
    def __init__(self, app: ASGIApp, *, per_client: int, total: int, idle_secs: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.per_client = per_client
        self.total = total
        self.idle_secs = idle_secs
        self.clock = clock
        self.sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self.held: Counter[str] = Counter()  # sessions (and openings under way) per client
        self.opening = 0
        self.closed = 0  # sessions this layer closed to make room
        self.refused = 0  # requests with a session id that is not the client's (or not known)

    @classmethod
    def from_settings(cls, app: ASGIApp, settings: Any) -> SessionLimits:
        return cls(app, per_client=settings.getint("WEB_SERVE_MAX_SESSIONS_PER_CLIENT"),
                   total=settings.getint("WEB_SERVE_MAX_SESSIONS"),
                   idle_secs=settings.getfloat("WEB_SERVE_SESSION_IDLE_SECS"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        sid = Headers(scope=scope).get(SESSION_HEADER)
        if sid is not None:
            await self._existing(sid, scope, receive, send)
        elif scope.get("method") == "POST":
            await self._opening(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # -- bookkeeping
    def _forget(self, sid: str) -> None:
        session = self.sessions.pop(sid, None)
        if session is not None:
            self.held[session.client] -= 1
            if self.held[session.client] <= 0:
                del self.held[session.client]

    def _use(self, session: Session, now: float) -> int:
        if not session.in_flight and self.idle_secs is not None and now - session.last > self.idle_secs:
            return EXPIRED
        return session.use

    def _idle_victim(self, client: str, now: float) -> tuple[int, str] | None:
        """``client``'s idle session to close first (its use, its id): the least used, the
        least recently used among equals."""
        best: tuple[int, str] | None = None
        for sid, session in self.sessions.items():  # least recently used first
            if session.in_flight or session.client != client:
                continue
            use = self._use(session, now)
            if best is None or use < best[0]:
                best = (use, sid)
                if use == EXPIRED:
                    break
        return best

    async def _close(self, sid: str, scope: Scope) -> None:
        """End session ``sid`` (already forgotten) as its client would, with a DELETE the SDK
        answers in process."""
        self.closed += 1
        host = [(k, v) for k, v in scope.get("headers", []) if k == b"host"]
        delete = {**scope, "method": "DELETE", "query_string": b"",
                  "headers": [*host, (SESSION_HEADER.encode(), sid.encode("latin-1"))]}
        delete.pop(BODY_KEY, None)

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            pass

        await self.app(delete, receive, discard)

    # -- requests
    async def _existing(self, sid: str, scope: Scope, receive: Receive, send: Send) -> None:
        session = self.sessions.get(sid)
        if session is None or session.client != client_of(scope):
            self.refused += 1
            await session_not_found()(scope, receive, send)
            return
        session.in_flight += 1
        session.use = max(session.use, use_of(scope))
        self.sessions.move_to_end(sid)
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            session.in_flight -= 1
            session.last = self.clock()
            if sid in self.sessions:
                self.sessions.move_to_end(sid)
            if status == 404 or (scope.get("method") == "DELETE" and 200 <= status < 300):
                self._forget(sid)

    async def _opening(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        now = self.clock()
        victim = None
        if self.held[client] >= self.per_client:
            own = self._idle_victim(client, now)
            if own is None:
                await refuse(scope, 429, "too_many_sessions", f"this client already has {self.per_client} MCP "
                             "sessions with requests in flight (WEB_SERVE_MAX_SESSIONS_PER_CLIENT)",
                             headers={"Retry-After": str(RETRY_AFTER_SECS)},
                             limit=self.per_client)(scope, receive, send)
                return
            victim = own[1]
        elif len(self.sessions) + self.opening >= self.total:
            # the least used idle session of any client, the biggest holder's among equals
            best: tuple[int, str] | None = None
            for holder, _count in self.held.most_common():
                found = self._idle_victim(holder, now)
                if found is not None and (best is None or found[0] < best[0]):
                    best = found
            if best is None:
                await refuse(scope, 503, "too_many_sessions", f"the server has {self.total} MCP sessions with "
                             "requests in flight (WEB_SERVE_MAX_SESSIONS)",
                             headers={"Retry-After": str(RETRY_AFTER_SECS)}, limit=self.total)(scope, receive, send)
                return
            victim = best[1]
        if victim is not None:
            self._forget(victim)
        # The opening holds its place from here, before any await, so concurrent openings
        # never see the same free place.
        self.held[client] += 1
        self.opening += 1
        opened: str | None = None

        async def watch(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                sid = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
                if sid is not None and sid not in self.sessions:
                    opened = sid
                    self.sessions[sid] = Session(client, in_flight=1, last=self.clock())
                    self.held[client] += 1
            await send(message)

        try:
            if victim is not None:
                await self._close(victim, scope)
            await self.app(scope, receive, watch)
        finally:
            self.opening -= 1
            self.held[client] -= 1
            if self.held[client] <= 0:
                del self.held[client]
            if opened is not None and opened in self.sessions:
                session = self.sessions[opened]
                session.in_flight -= 1
                session.last = self.clock()
