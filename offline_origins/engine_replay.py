"""A loopback stand-in for every keyless (and keyed) search engine, replaying recorded
responses from the shared data folder (read at run time, never copied into the project).

One TLS server answers for all the engines' real host names (``LIGHT_HOST_MAP`` sends
them here; ``WEB_SEARCH_TLS_CA_FILE`` makes its certificate valid), so the engines run
with their default endpoints. Behaviour is scripted per engine: a queue of steps
(status, headers, body or a recorded file, delay), consumed one per request, then the
engine's default recording; a latency range for every request (the benchmark); and a
request log per engine, so tests count what reached the "engine".

Where no real response exists (SearXNG JSON with results, an OpenRouter ``:online``
answer), :data:`BUILT` holds one built from the provider's documented format.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from lightsearch.offline_origins.replay import TlsReplay

HOSTS = {
    "html.duckduckgo.com": "ddg_html",
    "lite.duckduckgo.com": "ddg_lite",
    "news.google.com": "news",
    "en.wikipedia.org": "wikipedia",
    "he.wikipedia.org": "wikipedia",
    "hn.algolia.com": "hn",
    "www.reddit.com": "reddit",
    "api.tavily.com": "tavily",
    "openrouter.ai": "openrouter",
    "searx.replay.test": "searxng",
}
SEARXNG_URL = "https://searx.replay.test"

# Engine -> (recorded file under search-provider-responses/, content type).
RECORDED = {
    "ddg_html": ("duckduckgo_html/ddg_html_eino_10results_2025.html", "text/html; charset=utf-8"),
    "ddg_lite": ("duckduckgo_lite/ddg_lite_weather_san_francisco_10results_2026-01.html",
                 "text/html; charset=utf-8"),
    "news": ("google_news_rss/google_news_top_stories_ja_JP_2024-02-06_prettified.xml",
             "application/rss+xml; charset=utf-8"),
    "wikipedia": ("wikipedia_api_modern/wikipedia_list_search_rust_srlimit2_suggestion_2022-04.json",
                  "application/json"),
    "hn": ("hn_algolia/hn_algolia_search_javascript_title_5hits.json", "application/json"),
    "reddit": ("reddit/reddit_r_all_search_praw_oauth_search.json", "application/json"),
    "tavily": ("tavily_api/tavily_search_include_answer_advanced_5results_2025.json", "application/json"),
}
CHALLENGE = "duckduckgo_challenge/ddg_html_anomaly_challenge_2026-09_trimmed.html"
SPA = "duckduckgo_spa/glassfox56_duckduckgo-com-spa-openclaw.html"
DDG_EMPTY = "duckduckgo_html/ddg_html_no_more_results.html"
SEARXNG_403 = "searxng/searxng_403_json_format_not_enabled_2025-09.html"

# Built from documented formats (no real recording exists; see ../shared/data/INDEX.md).
BUILT: dict[str, Any] = {
    # SearXNG /search?format=json, per docs.searxng.org "Search API" (fields as the
    # json output template writes them).
    "searxng": {
        "query": "rust ownership", "number_of_results": 0,
        "results": [
            {"url": "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
             "title": "What is Ownership? - The Rust Programming Language",
             "content": "Ownership is a set of rules that govern how a Rust program manages memory.",
             "engine": "duckduckgo", "engines": ["duckduckgo", "brave"], "score": 4.0,
             "publishedDate": None, "category": "general"},
            {"url": "https://en.wikipedia.org/wiki/Rust_(programming_language)",
             "title": "Rust (programming language) - Wikipedia",
             "content": "Rust is a general-purpose programming language emphasizing performance.",
             "engine": "wikipedia", "engines": ["wikipedia"], "score": 2.0,
             "publishedDate": "2024-05-01T00:00:00", "category": "general"},
        ],
        "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
        "unresponsive_engines": [["google", "CAPTCHA"], ["qwant", "timeout"]],
    },
    # OpenRouter chat completion with the web plugin (":online"), per
    # openrouter.ai/docs/features/web-search: message.annotations of type url_citation.
    "openrouter": {
        "id": "gen-built", "object": "chat.completion", "model": "openai/gpt-4o-mini:online",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": "```json\n[{\"title\": \"The Rust Book: Ownership\", \"url\": "
                       "\"https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html\", \"snippet\": "
                       "\"Ownership rules: each value has one owner; when the owner goes out of scope the value "
                       "is dropped.\", \"publishedAt\": null}, {\"title\": \"Invented\", \"url\": "
                       "\"https://made-up.example/rust\", \"snippet\": \"not cited\"}]\n```",
            "annotations": [
                {"type": "url_citation", "url_citation": {
                    "url": "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html?utm_source=openrouter",
                    "title": "What is Ownership?", "content": "Ownership is a set of rules...",
                    "start_index": 0, "end_index": 10}},
                {"type": "url_citation", "url_citation": {
                    "url": "https://blog.rust-lang.org/ownership", "title": "Rust Blog",
                    "content": "A post about ownership.", "start_index": 11, "end_index": 20}},
            ]}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 80, "total_tokens": 130},
    },
}


@dataclass
class Step:
    status: int = 200
    headers: dict[str, str] | None = None
    body: bytes | None = None
    file: str | None = None  # a recorded file instead of the engine's default
    delay: float = 0.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._answer(self.rfile.read(length) if length else b"")

    def _answer(self, body: bytes) -> None:
        replay: EngineReplay = self.server.replay  # type: ignore[attr-defined]
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        engine = HOSTS.get(host, "unknown")
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if body and "form" in (self.headers.get("Content-Type") or ""):
            params.update({k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()})
        elif body:
            with contextlib.suppress(ValueError):
                params.update({"json": json.loads(body)})
        step = replay._record_and_step(engine, {"host": host, "path": parts.path, "method": self.command,
                                                "params": params, "headers": dict(self.headers.items())})
        delay = step.delay + replay.latency_for(engine)
        if delay:
            time.sleep(delay)
        status, headers, payload = replay.response(engine, step)
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (timeout, cancellation)
            self.close_connection = True


class EngineReplay(TlsReplay):
    """Start it, merge ``settings()`` into the engines' settings, script engines, stop it."""

    handler = _Handler
    thread_name = "engine-replay"

    def __init__(self, data_dir: Path | str) -> None:
        super().__init__(tuple(HOSTS))
        self.data_dir = Path(data_dir)
        self.steps: dict[str, list[tuple[Step, bool]]] = {}
        self.latency: dict[str, tuple[float, float]] = {}
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._random = random.Random(15)

    def settings(self) -> dict[str, Any]:
        return {"LIGHT_HOST_MAP": self.host_map(), "WEB_SEARCH_TLS_CA_FILE": self.ca_file,
                "WEB_SEARCH_SEARXNG_URL": SEARXNG_URL}

    # ------------------------------------------------------------------ scripting
    def script(self, engine: str, *, times: int = 1, repeat: bool = False, **step: Any) -> None:
        """Queue a step for ``engine``'s next ``times`` requests (or every one: ``repeat``)."""
        with self._lock:
            queue = self.steps.setdefault(engine, [])
            queue.extend([(Step(**step), repeat)] * (1 if repeat else times))

    def set_latency(self, low: float, high: float, engines: Any = None) -> None:
        for engine in engines or set(HOSTS.values()):
            self.latency[engine] = (low, high)

    def latency_for(self, engine: str) -> float:
        low, high = self.latency.get(engine, (0.0, 0.0))
        with self._lock:
            return self._random.uniform(low, high) if high else 0.0

    def reset(self) -> None:
        with self._lock:
            self.steps.clear()
            self.log.clear()
            self.latency.clear()

    def requests_for(self, engine: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.log if e["engine"] == engine]

    def count(self, engine: str) -> int:
        return len(self.requests_for(engine))

    def read(self, name: str) -> bytes:
        return (self.data_dir / name).read_bytes()

    # ------------------------------------------------------------------ internals
    def _record_and_step(self, engine: str, entry: dict[str, Any]) -> Step:
        with self._lock:
            self.log.append({"engine": engine, **entry})
            queue = self.steps.get(engine) or []
            if not queue:
                return Step()
            step, repeat = queue[0]
            if not repeat:
                queue.pop(0)
            return step

    def response(self, engine: str, step: Step) -> tuple[int, dict[str, str], bytes]:
        headers = dict(step.headers or {})
        if step.body is not None:
            headers.setdefault("Content-Type", "text/html; charset=utf-8")
            return step.status, headers, step.body
        if step.file is not None:
            kind = "application/json" if step.file.endswith(".json") else "text/html; charset=utf-8"
            headers.setdefault("Content-Type", kind)
            return step.status, headers, self.read(step.file)
        if engine in BUILT:
            headers.setdefault("Content-Type", "application/json")
            return step.status, headers, json.dumps(BUILT[engine]).encode()
        if engine not in RECORDED:
            return 404, {"Content-Type": "text/plain"}, b"no such engine"
        name, kind = RECORDED[engine]
        headers.setdefault("Content-Type", kind)
        return step.status, headers, self.read(name)
