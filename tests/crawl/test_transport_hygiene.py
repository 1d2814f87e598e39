"""TLS verification and redirect confinement, against loopback origins."""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test
from tests.hygiene_world import HEALTHY, QUERY, case_routes, counts, errors, hit_urls, paths, world


@coroutine_test
async def test_certificate_for_another_name_is_refused(origins, tmp_path):
    host = "tls-wrong-name.test"
    cfg = world(origins, tmp_path, host, case_routes())
    origins.wrong_name_hosts.add(host)
    try:
        result = await LightSearch.from_settings(cfg).search(QUERY)
    finally:
        origins.wrong_name_hosts.discard(host)
    assert {e["code"] for e in errors(result)} == {"tls_error"}
    assert paths(origins, host) == []  # the handshake failed: no HTTP request was made
    assert hit_urls(result) == [f"https://{HEALTHY}/moraine"]


@coroutine_test
async def test_untrusted_ca_is_refused_unless_configured(origins, tmp_path):
    host = "tls-untrusted.test"
    cfg = world(origins, tmp_path, host, case_routes())
    cfg.pop("LIGHT_TLS_CA_FILE")  # the test CA is trusted only through explicit configuration
    with pytest.raises(LightSearchError) as info:
        await LightSearch.from_settings(cfg).search(QUERY)
    assert info.value.code == "web_search_sources_unavailable"
    assert {e["code"] for e in info.value.details["sourceErrors"]} == {"tls_error"}
    assert paths(origins, host) == []
    assert paths(origins, HEALTHY) == []


@pytest.mark.parametrize(("name", "target", "refused"), [
    ("off the catalog", "https://elsewhere.test/a", True),
    ("another catalog source", f"https://{HEALTHY}/other", True),
    ("a downgrade to http", "http://redirect-case.test/b", True),
    ("same origin", "/b", False),
])
@coroutine_test
async def test_redirects_stay_on_the_source(origins, tmp_path, name, target, refused):
    host = "redirect-case.test"
    routes = case_routes(**{"/a": {"redirect": target},
                            "/b": {"body": article_html("Glacier moraine sediment survey, moved")}})
    cfg = world(origins, tmp_path, host, routes,
                extra_sites={"elsewhere.test": {"/a": {"body": article_html("Glacier moraine sediment elsewhere")}}})
    result = await LightSearch.from_settings(cfg).search(QUERY)
    c = counts(result)
    if refused:
        assert [e["code"] for e in errors(result)] == ["redirect_refused"]
        assert c["redirectsRefused"] == 1
        assert paths(origins, "elsewhere.test") == []
        assert "/b" not in paths(origins, host)
        assert not [u for u in hit_urls(result) if u.endswith("/a") or "elsewhere" in u]
    else:
        assert c["redirectsRefused"] == 0
        hit = next(h for h in result["hits"] if h["url"] == f"https://{host}/b")
        assert hit["originalUrl"] == f"https://{host}/a"
