"""A crawl over a site defined inside the test, to check the plumbing end to end."""

from __future__ import annotations

from lightsearch.providers.light import LightSearch
from tests.conftest import coroutine_test, write_catalog

ARTICLE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tidal power in the Severn estuary - Example Times</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Tidal power in the Severn estuary</h1>
<p>The Severn estuary has one of the largest tidal ranges in the world, more than fourteen
metres at spring tides, which has made it the subject of tidal power proposals for a century.</p>
<p>A barrage across the estuary would hold back the flood tide and release it through turbines,
generating electricity on a schedule that can be predicted years ahead.</p>
<p>Critics point to the loss of intertidal mudflats that feed migrating wading birds, and to
the cost, which has repeatedly exceeded what private investors would carry.</p>
</article><footer>Example Times</footer></body></html>"""

HOME = """<!doctype html><html><head><title>Example Times</title></head><body>
<a href="/energy/tidal-power-severn">Tidal power in the Severn estuary</a>
<a href="/sport/cup-final">Cup final report</a></body></html>"""


@coroutine_test
async def test_search_finds_linked_article(origins, offline_settings, tmp_path):
    origins.add_site("smoke.example", {
        "/robots.txt": {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"},
        "/": {"body": HOME},
        "/energy/tidal-power-severn": {"body": ARTICLE},
    })
    catalog = write_catalog(tmp_path / "c.json", [{
        "id": "smoke", "name": "Smoke Times", "language": "en", "kind": "news",
        "origins": ["https://smoke.example"], "seeds": ["https://smoke.example/"],
        "topics": ["energy"],
    }])
    settings = {**offline_settings, "LIGHT_CATALOG": catalog,
                "LIGHT_HOST_MAP": {**offline_settings["LIGHT_HOST_MAP"],
                                   "smoke.example": offline_settings["LIGHT_HOST_MAP"].get(
                                       "en.wikipedia.org",
                                       {"http": f"127.0.0.1:{origins.http_port}",
                                        "https": f"127.0.0.1:{origins.https_port}"})}}
    result = await LightSearch.from_settings(settings).search("severn tidal power")
    assert result["hits"], result
    assert result["hits"][0]["url"] == "https://smoke.example/energy/tidal-power-severn"
    assert result["meta"]["lightSearch"]["counts"]["requests"] == 3  # robots, home, article
