"""Origins whose pages are held: a request for one arrives, is noted, and is answered only
once the test lets the pages go, so a test can see what reached the origins, and in which
order, while transfers hold their slots.

``HeldPages(origins, count)`` adds ``held0.example`` ... (each one page, ``/``, held) and
``quick.example`` (a page answered at once) to the offline origins.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.conftest import ROBOTS_ALLOW, article_html

QUICK_URL = "https://quick.example/"


HELD_HOSTS = 6  # held origins a server started with :func:`name_hosts` knows


def name_hosts(origins: Any) -> None:
    """Give the held origins' names to the offline origins, before a server in another
    process takes its host map from them; a test's :class:`HeldPages` serves them."""
    for host in [*(f"held{i}.example" for i in range(HELD_HOSTS)), "quick.example"]:
        if host not in origins.sites:
            origins.add_site(host, {})


class HeldPages:
    def __init__(self, origins: Any, count: int = HELD_HOSTS) -> None:
        self.origins = origins
        self.urls = [f"https://held{i}.example/" for i in range(count)]
        self.arrived: list[str] = []  # the held pages asked for, in order
        self._gate = threading.Event()
        self._lock = threading.Lock()
        body = article_html("A page held at its origin").encode()
        for i in range(count):
            origins.add_site(f"held{i}.example", {"/robots.txt": ROBOTS_ALLOW, "/": {"handler": self._handler(i, body)}})
        origins.add_site("quick.example", {"/robots.txt": ROBOTS_ALLOW, "/": {"body": article_html("Tide tables")}})

    def _handler(self, i: int, body: bytes) -> Any:
        def handler(request_handler: Any) -> None:
            with self._lock:
                self.arrived.append(f"held{i}")
            self._gate.wait(120)  # a backstop: the test lets go long before
            request_handler.release()
            request_handler.send_response(200)
            request_handler.send_header("Content-Type", "text/html; charset=utf-8")
            request_handler.send_header("Content-Length", str(len(body)))
            request_handler.end_headers()
            request_handler.wfile.write(body)

        return handler

    def held(self) -> int:
        with self._lock:
            return len(self.arrived)

    async def until_held(self, count: int, within: float = 60.0) -> None:
        """Wait until ``count`` held pages are being asked for (polled, generous)."""
        for _ in range(int(within / 0.02)):
            if self.held() >= count:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"only {self.held()} held pages were asked for, not {count}")

    def let_go(self) -> None:
        self._gate.set()
