"""A synchronous client: ``Client().search("query")`` from plain scripts, threads and notebooks.

The engines run on Twisted's asyncio reactor, which belongs to one event loop for the life
of the process. A synchronous caller has no loop to lend (a script), or one it cannot block
on (a Jupyter cell runs inside the notebook's own loop), or many threads. So every
:class:`Client` of the process sends its calls to one background thread that owns one
event loop, and the reactor with it; a call blocks its caller until the answer is back
(``Ctrl-C`` cancels it, and the crawl behind it stops). Each client has its own
:class:`~lightsearch.surfaces.toolbox.Toolbox`: its configuration, providers and limits.

Use either this client or the ``async`` API (``LightSearch``, ``WebFetch``, ``Toolbox``)
in one process, not both: the reactor can only belong to one of their loops.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from lightsearch.errors import LightSearchError

T = TypeVar("T")

# A call that has not come back by then is cancelled: every tool's own deadline is far
# shorter (30 s for a search), so this only guards against a stuck loop.
CALL_TIMEOUT_SECS = 300.0


class _LoopThread:
    """The process's one background event loop for synchronous callers."""

    _lock = threading.Lock()
    _current: _LoopThread | None = None

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="lightsearch-loop", daemon=True)
        self.thread.start()

    @classmethod
    def get(cls) -> _LoopThread:
        with cls._lock:
            if cls._current is None or not cls._current.thread.is_alive():
                cls._current = cls()
                atexit.register(cls._current.stop)
            return cls._current

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        if threading.current_thread() is self.thread:
            coro.close()
            raise LightSearchError("invalid_input", "a Client call cannot be made from the client's own "
                                   "event loop; await the async API there instead", {})
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise LightSearchError("deadline_exceeded", f"the call did not finish within {timeout:g} s",
                                   {"deadlineSecs": timeout}) from None
        except BaseException:  # KeyboardInterrupt in the caller: stop the work behind it
            future.cancel()
            raise

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)


class Client:
    """The three tools as blocking calls; configured like the ``lightsearch`` command
    (defaults < environment < ``settings``), or the bundled offline origins with
    ``offline=True``. Safe to share between threads; close it (or use ``with``) to stop
    what it started. Every method of a closed client raises ``LightSearchError`` with the
    code ``client_closed``."""

    def __init__(self, settings: Mapping[str, Any] | None = None, *, offline: bool = False,
                 environ: Mapping[str, str] | None = None, timeout: float = CALL_TIMEOUT_SECS) -> None:
        self.timeout = timeout
        self._runner = _LoopThread.get()
        self._toolbox = self._run(self._open(dict(settings or {}), offline, environ))

    @staticmethod
    async def _open(settings: dict[str, Any], offline: bool, environ: Mapping[str, str] | None) -> Any:
        from lightsearch.surfaces.toolbox import Toolbox

        return Toolbox.from_environ(settings, environ, offline=offline)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._runner.run(coro, self.timeout)

    def _box(self) -> Any:
        """The client's toolbox; ``client_closed`` once :meth:`close` has run."""
        box = self._toolbox
        if box is None:
            raise LightSearchError("client_closed", "this Client is closed (close() or the end of its with "
                                   "block): make a new Client for more calls", {})
        return box

    # ------------------------------------------------------------------ the tools
    def search(self, query: str | Sequence[str], *, max_results: int | None = None,
               recency: str | None = None, include_domains: Sequence[str] | None = None,
               exclude_domains: Sequence[str] | None = None, region: str | None = None,
               after: str | None = None, before: str | None = None) -> dict[str, Any]:
        """web_search: one query, or several searched together and fused; only hits on
        ``include_domains``, never one on ``exclude_domains`` (a domain with its subdomains),
        in ``region`` (``us-en``), dated between ``after`` and ``before`` (``YYYY-MM-DD``)."""
        filters = {"include_domains": include_domains, "exclude_domains": exclude_domains, "region": region,
                   "after": after, "before": before}
        box = self._box()
        if isinstance(query, str):
            return self._run(box.search(query, max_results=max_results, recency=recency, **filters))
        return self._run(box.search(queries=list(query), max_results=max_results, recency=recency, **filters))

    def news(self, query: str, *, when: str | None = None, max_results: int | None = None,
             include_domains: Sequence[str] | None = None, exclude_domains: Sequence[str] | None = None,
             region: str | None = None, after: str | None = None, before: str | None = None) -> dict[str, Any]:
        """web_news: recent news, newest first within relevance; filtered as :meth:`search`
        (``after``/``before`` replace the default ``when``)."""
        return self._run(self._box().news(query, when=when, max_results=max_results,
                                          include_domains=include_domains, exclude_domains=exclude_domains,
                                          region=region, after=after, before=before))

    def fetch(self, url: str | Sequence[str], *, max_chars: int | None = None, start_index: int = 0,
              raw: bool = False, **options: Any) -> dict[str, Any]:
        """web_fetch: one page, or a list of pages read together; ``options`` are
        ``markdown``, ``head_tail`` and ``robots``, as in ``WebFetch.fetch``."""
        target = url if isinstance(url, str) else list(url)
        return self._run(self._box().fetch(target, max_chars=max_chars, start_index=start_index,
                                           raw=raw, **options))

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        """One tool call as a model makes it: the envelope, or ``{"error", "text"}``."""
        return self._run(self._box().invoke(name, arguments))

    def definitions(self, format: str = "mcp") -> list[dict[str, Any]]:
        """The tool list for a model: ``openai``, ``openai-strict``, ``anthropic`` or ``mcp``."""
        return self._box().definitions(format)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop what the client started; a second close does nothing, and any other call
        after it is ``client_closed``."""
        box, self._toolbox = self._toolbox, None
        if box is not None:
            self._run(box.aclose())

    def __enter__(self) -> Client:
        self._box()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
