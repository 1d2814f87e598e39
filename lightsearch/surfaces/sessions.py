"""Caps on the MCP sessions of ``/mcp``: per client address and per server process.

The SDK's session manager caps the total (``max_sessions``) and closes a session idle for
``session_idle_timeout``; both are passed to it explicitly (``WEB_SERVE_MAX_SESSIONS``,
``WEB_SERVE_SESSION_IDLE_SECS``). It knows nothing of clients, so this ASGI layer in front
of it counts the sessions each client address opened, from the ``mcp-session-id`` of every
successful opening request, and makes room before a new one is opened:

- a client at ``WEB_SERVE_MAX_SESSIONS_PER_CLIENT`` loses its own least recently used
  session with no request in flight (one client's flood only ever closes its own sessions);
- at ``WEB_SERVE_MAX_SESSIONS`` in all, the client holding the most sessions loses its
  least recently used idle one;
- either way a session never used after its opening request goes before one in use, so
  a flood of ``initialize`` from an agent's own address closes the flood's sessions, not
  the agent's;
- with no idle session to close, the new session is refused (429 ``too_many_sessions`` for
  the client's cap, 503 for the total), with ``Retry-After``.

A session is closed the way a client closes it, with ``DELETE /mcp`` and its id, sent to
the SDK's app in process. The table forgets a session on that DELETE, on a client's own
DELETE, and when the SDK answers 404 for its id (it expired or ended); an entry the SDK
already dropped is the first to be chosen and costs nothing to close.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lightsearch.surfaces.front_door import MCP_PATH, client_of, refuse

SESSION_HEADER = "mcp-session-id"
RETRY_AFTER_SECS = 5


@dataclass
class Session:
    client: str
    in_flight: int = 0
    requests: int = 1  # the opening one included


class SessionLimits:
    def __init__(self, app: ASGIApp, *, per_client: int, total: int) -> None:
        self.app = app
        self.per_client = per_client
        self.total = total
        self.sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self.held: Counter[str] = Counter()  # sessions (and openings under way) per client
        self.opening = 0
        self.closed = 0  # sessions this layer closed to make room

    @classmethod
    def from_settings(cls, app: ASGIApp, settings: Any) -> SessionLimits:
        return cls(app, per_client=settings.getint("WEB_SERVE_MAX_SESSIONS_PER_CLIENT"),
                   total=settings.getint("WEB_SERVE_MAX_SESSIONS"))

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

    def _idle_victim(self, client: str) -> str | None:
        """``client``'s least recently used idle session, one never used since it opened first."""
        fallback = None
        for sid, session in self.sessions.items():
            if session.in_flight or session.client != client:
                continue
            if session.requests <= 1:
                return sid
            fallback = fallback or sid
        return fallback

    async def _close(self, sid: str, scope: Scope) -> None:
        """End session ``sid`` (already forgotten) as its client would, with a DELETE the SDK
        answers in process."""
        self.closed += 1
        host = [(k, v) for k, v in scope.get("headers", []) if k == b"host"]
        delete = {**scope, "method": "DELETE", "query_string": b"",
                  "headers": [*host, (SESSION_HEADER.encode(), sid.encode("latin-1"))]}

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            pass

        await self.app(delete, receive, discard)

    # -- requests
    async def _existing(self, sid: str, scope: Scope, receive: Receive, send: Send) -> None:
        session = self.sessions.get(sid)
        if session is not None:
            session.in_flight += 1
            session.requests += 1
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
            if session is not None:
                session.in_flight -= 1
                if sid in self.sessions:
                    self.sessions.move_to_end(sid)
            if status == 404 or (scope.get("method") == "DELETE" and 200 <= status < 300):
                self._forget(sid)

    async def _opening(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        victim = None
        if self.held[client] >= self.per_client:
            victim = self._idle_victim(client)
            if victim is None:
                await refuse(scope, 429, "too_many_sessions", f"this client already has {self.per_client} MCP "
                             "sessions with requests in flight (WEB_SERVE_MAX_SESSIONS_PER_CLIENT)",
                             headers={"Retry-After": str(RETRY_AFTER_SECS)},
                             limit=self.per_client)(scope, receive, send)
                return
        elif len(self.sessions) + self.opening >= self.total:
            for holder, _count in self.held.most_common():
                victim = self._idle_victim(holder)
                if victim is not None:
                    break
            if victim is None:
                await refuse(scope, 503, "too_many_sessions", f"the server has {self.total} MCP sessions with "
                             "requests in flight (WEB_SERVE_MAX_SESSIONS)",
                             headers={"Retry-After": str(RETRY_AFTER_SECS)}, limit=self.total)(scope, receive, send)
                return
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
                    self.sessions[sid] = Session(client, in_flight=1)
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
                self.sessions[opened].in_flight -= 1
