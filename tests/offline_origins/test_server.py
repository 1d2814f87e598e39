"""The fixture sites stand in for catalog sources faithfully enough to crawl."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from urllib.parse import unquote, urlsplit

from lightsearch.offline_origins.server import OfflineOrigins, load_sites
from lightsearch.plan.catalog import load_catalog


def _route_for(site, url):
    parts = urlsplit(url)
    path = unquote(parts.path or "/")
    keys = [f"{path}?{parts.query}", f"{path}?{unquote(parts.query)}"] if parts.query else [path]
    return next((site.routes[k] for k in keys if k in site.routes), None)


def test_fixture_sites_cover_both_languages_and_all_kinds():
    catalog = load_catalog()
    sites = load_sites()
    covered = {catalog.by_id[s.source_id] for s in sites.values() if s.source_id in catalog.by_id}
    assert len(covered) >= 8
    kinds = Counter((s.language, s.kind) for s in covered)
    for lang in ("en", "he"):
        for kind in ("reference", "government", "news", "science", "technology"):
            assert kinds[(lang, kind)] >= 1, (lang, kind)


def test_every_catalog_url_of_a_fixture_source_is_served():
    catalog = load_catalog()
    sites = load_sites()
    for site in sites.values():
        source = catalog.by_id.get(site.source_id or "")
        if source is None:
            continue
        for url in (*source.seeds, *source.feeds, *source.sitemaps):
            host = urlsplit(url).hostname
            if host not in sites:
                raise AssertionError(f"{source.id}: no fixture site for {host} ({url})")
            assert _route_for(sites[host], url) is not None, f"{source.id}: {url} not served"


def test_every_route_file_exists_and_xml_parses():
    for site in load_sites().values():
        assert "/robots.txt" in site.routes, site.host
        for path, route in site.routes.items():
            if "file" not in route:
                continue
            file = site.root / route["file"]
            assert file.is_file(), (site.host, path)
            if file.suffix == ".xml":
                ET.parse(file)


def test_articles_are_substantive_and_reachable_only_by_discovery():
    sites = load_sites()
    discovery_only = 0
    for site in sites.values():
        for article in site.articles:
            route = site.routes[article["path"]]
            html = (site.root / route["file"]).read_text(encoding="utf-8")
            assert html.count("<p") >= 4, (site.host, article["path"])
            if set(article.get("reachable_via", [])) <= {"sitemap", "link", "hub"}:
                discovery_only += 1
    assert discovery_only >= 5


def test_server_picks_the_site_by_host_header():
    import http.client

    with OfflineOrigins() as server:
        host = next(iter(server.sites))
        conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=5)
        conn.request("GET", "/robots.txt", headers={"Host": host})
        resp = conn.getresponse()
        assert resp.status == 200
        assert b"User-agent" in resp.read()
        conn.request("GET", "/robots.txt", headers={"Host": "unknown.invalid"})
        resp = conn.getresponse()
        assert resp.status == 421
        resp.read()
        conn.close()
        assert server.requests_for(host)


def test_the_origins_send_without_waiting_for_an_ack_as_real_servers_do():
    import http.client
    import socket

    def tell_nodelay(handler):
        flag = handler.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        body = str(flag).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    with OfflineOrigins() as server:
        server.add_site("nodelay.example", {"/": {"handler": tell_nodelay}})
        conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=5)
        for _ in range(2):  # the second request rides the kept-alive connection
            conn.request("GET", "/", headers={"Host": "nodelay.example"})
            assert conn.getresponse().read() != b"0"
        conn.close()


def test_a_gated_route_answers_once_its_test_opens_the_gate():
    import http.client
    import threading
    from concurrent.futures import ThreadPoolExecutor

    def get(server, host):
        conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=60)
        conn.request("GET", "/", headers={"Host": host})
        response = conn.getresponse()
        conn.close()
        return response.status

    opened, broken = threading.Event(), threading.Barrier(2)
    with OfflineOrigins() as server, ThreadPoolExecutor(2) as threads:
        server.add_site("gated.example", {"/": {"body": "hello", "gate": opened}})
        server.add_site("broken.example", {"/": {"body": "hello", "gate": broken}})
        waiting = threads.submit(get, server, "gated.example")
        while not server.requests_for("gated.example"):
            threading.Event().wait(0.01)
        assert not waiting.done()  # held while the gate is shut (it never opens by itself)
        opened.set()
        assert waiting.result(timeout=60) == 200
        broken.abort()  # a barrier whose parties never all arrive
        assert get(server, "broken.example") == 503
