"""An app embeds the engine: searches and a fetch inside ``asyncio.run``, then the process
exits by itself; a second ``asyncio.run`` fails at once with a clear, documented error."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r'''
import asyncio, json
from lightsearch import LightSearch, LightSearchError
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.providers.fetch import WebFetch

origins = OfflineOrigins().start()
settings = {**origins.settings(), "LOG_LEVEL": "ERROR"}

async def main():
    out = {}
    async with LightSearch.from_settings(settings) as engine:
        out["a"] = len((await engine.search("photosynthesis calvin cycle"))["hits"])
        out["b"] = len((await engine.search("europa clipper"))["hits"])
    async with WebFetch.from_settings(settings) as reader:
        out["title"] = (await reader.fetch("https://www.nasa.gov/"))["title"]
    return out

print(json.dumps(asyncio.run(main())), flush=True)
try:
    asyncio.run(main())
    print(json.dumps({"second": "ok"}), flush=True)
except LightSearchError as exc:
    print(json.dumps({"second": exc.code, "message": exc.message}), flush=True)
origins.stop()
print(json.dumps({"last": True}), flush=True)
'''


def test_a_script_exits_by_itself_and_a_second_asyncio_run_fails_at_once_with_a_clear_error():
    # the process ends by itself (a thread or a server left running would hold it past the timeout)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["a"] >= 1
    assert lines[0]["b"] >= 1
    assert lines[0]["title"]
    second = lines[1]
    assert second["second"] == "runtime_closed"
    assert "one asyncio.run()" in second["message"]
    assert lines[-1] == {"last": True}


APP = r'''
import json, logging, sys
import scrapy
from scrapy.crawler import CrawlerProcess
from lightsearch import LightSearch, WebFetch
from lightsearch.offline_origins.server import OfflineOrigins

origins = OfflineOrigins().start()
nasa = "http://" + origins.host_map()["www.nasa.gov"]["http"]
light = {**origins.settings(), "LOG_LEVEL": "ERROR"}
out = {"pages": []}


class App(scrapy.Spider):
    """The app's own spider: it reads nasa.gov's pages with the app's own Scrapy settings and,
    on one of them, searches and fetches with Light while its other requests go on."""
    name = "app"
    custom_settings = {"ROBOTSTXT_OBEY": False}

    async def start(self):
        for path in ("/missions/", "/news/", "/", "/feed/"):
            yield scrapy.Request(nasa + path, headers={"Host": "www.nasa.gov"}, dont_filter=True)

    async def parse(self, response):
        out["pages"].append(response.url)
        if not response.url.endswith("/missions/"):
            return
        from twisted.internet import reactor  # the one CrawlerProcess installed

        pool, handlers = reactor.getThreadPool(), list(logging.root.handlers)
        async with LightSearch.from_settings(light) as engine, WebFetch.from_settings(light) as reader:
            found = await engine.search("europa clipper", max_results=3)
            page = await reader.fetch("https://www.nasa.gov/news/", max_chars=300)
        out["hits"] = [hit["url"] for hit in found["hits"]]
        out["title"] = page["title"]
        out["pool kept"] = reactor.threadpool is pool and pool.started
        out["logging kept"] = logging.root.handlers == handlers and handlers[0].level == logging.INFO
        yield {"searched": True}


process = CrawlerProcess({"LOG_LEVEL": "INFO", "TELNETCONSOLE_ENABLED": False})
process.crawl(App)
process.start()
origins.stop()
print(json.dumps(out), flush=True)
'''


def test_an_app_running_its_own_scrapy_searches_beside_its_spiders():
    """An app with its own CrawlerProcess (and so its own reactor, thread pool and logging)
    searches and fetches from a spider callback: its spider finishes, and lightsearch
    stops neither the reactor's thread pool nor the app's logging."""
    done = subprocess.run([sys.executable, "-c", APP], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(out["pages"]) == 4
    assert out["hits"][0].endswith("/nasas-europa-clipper-prepares-for-earth-gravity-assist/")
    assert out["title"]
    assert out["pool kept"] is True
    assert out["logging kept"] is True
    # the app's own log goes on at its level, without the searches' records
    assert "Spider closed (finished)" in done.stderr
    assert "'BOT_NAME': 'lightsearch'" not in done.stderr
