"""The one guarded HTTP client of the API providers (providers/apiclient.py), on its own:
real requests to a loopback server standing in for an API, every rule of the module's
docstring hit by the fault that breaks it."""

from __future__ import annotations

import asyncio
import gzip
import json
import time

import pytest

from lightsearch.config import make_settings
from lightsearch.providers.apiclient import ApiClient, ProviderError, retry_after_secs
from tests.conftest import coroutine_test

API = "api.test"


@pytest.fixture
def api(origins):
    origins.add_site(API, {
        "/ok": {"body": json.dumps({"answer": 42}), "type": "application/json"},
        "/gzip": {"body": json.dumps({"zipped": True}), "type": "application/json", "gzip": True},
        "/big": {"body": "x" * 50_000, "type": "text/plain"},
        "/slow": {"body": "{}", "type": "application/json", "delay": 600.0},  # never, in a test's time
        "/elsewhere": {"redirect": "https://other.test/ok", "status": 302},
        "/hop": {"redirect": "/ok", "status": 301},
        "/loop": {"redirect": "/loop", "status": 302},
        "/stacked": {"body": "{}", "type": "application/json",
                     "headers": {"Content-Encoding": "gzip, gzip, gzip"}},
        "/status": {"body": "down", "status": 503, "headers": {"Retry-After": "7"}},
        "/headers": {"body": "{}", "type": "application/json", "headers": {f"X-Field-{i}": "v" for i in range(30)}},
    })
    origins.add_site("other.test", {"/ok": {"body": "{}", "type": "application/json"}})
    return make_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})


def client(settings, **kw) -> ApiClient:
    """A client as a provider builds one, trusting the loopback server's test CA."""
    return ApiClient(settings, provider="testapi", max_bytes=kw.pop("max_bytes", 10_000),
                     ca_file=settings.get("LIGHT_TLS_CA_FILE"), **kw)


async def refused(coro) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await coro
    return info.value


@coroutine_test
async def test_a_mapped_api_answers_and_gzip_is_decoded(api):
    c = client(api)
    ok = await c.request("GET", f"https://{API}/ok", params={"q": "x"})
    assert ok.status == 200
    assert json.loads(ok.text()) == {"answer": 42}
    assert ok.elapsed_ms >= 0
    zipped = await c.request("GET", f"https://{API}/gzip")
    assert json.loads(zipped.body) == {"zipped": True}
    hopped = await c.request("GET", f"https://{API}/hop")
    assert json.loads(hopped.text()) == {"answer": 42}


@coroutine_test
async def test_redirects_stay_on_the_origin_and_are_few(api):
    c = client(api)
    off = await refused(c.request("GET", f"https://{API}/elsewhere"))
    assert off.code == "provider_bad_response"
    assert off.details["reason"] == "redirect_off_origin"
    loop = await refused(c.request("GET", f"https://{API}/loop"))
    assert loop.details["reason"] == "too_many_redirects"


@coroutine_test
async def test_a_body_over_the_bound_and_stacked_encodings_are_refused(api):
    big = await refused(client(api, max_bytes=10_000).request("GET", f"https://{API}/big"))
    assert big.code == "provider_bad_response"
    stacked = await refused(client(api).request("GET", f"https://{API}/stacked"))
    assert stacked.code == "provider_bad_response"


@coroutine_test
async def test_the_deadline_holds_and_is_a_timeout(api):
    slow = await asyncio.wait_for(refused(client(api).request("GET", f"https://{API}/slow", timeout=0.5)), 60)
    assert slow.code == "provider_timeout"
    spent = await refused(client(api).request("GET", f"https://{API}/ok", deadline=time.monotonic() - 1))
    assert spent.code == "provider_timeout"


@coroutine_test
async def test_the_guard_refuses_what_a_crawl_would(api):
    c = client(api)
    http = await refused(c.request("GET", f"http://{API}/ok"))
    assert http.details["reason"] == "invalid_url"  # https only unless allowed
    unmapped = await refused(c.request("GET", "https://not-mapped.test/ok"))
    assert unmapped.details["reason"] == "host_not_mapped"
    loopback = await refused(c.request("GET", "https://127.0.0.1:8443/ok"))
    assert loopback.code == "provider_network_error"


@coroutine_test
async def test_a_server_error_is_an_answer_with_its_retry_after(api):
    answer = await client(api).request("GET", f"https://{API}/status")
    assert answer.status == 503
    assert retry_after_secs(answer.header("retry-after")) == 7


@coroutine_test
async def test_the_client_holds_the_crawls_http_limits_policy(api):
    """The response head and encoding limits are the crawls' settings (crawl/http_limits.py),
    not the client's own: tightened there, they tighten here."""
    assert (await client(api).request("GET", f"https://{API}/headers")).status == 200
    tight = api.copy()
    tight.set("LIGHT_RESPONSE_MAX_HEADERS", 20, priority="cmdline")
    err = await refused(client(tight).request("GET", f"https://{API}/headers"))
    assert (err.details["reason"], err.details["fields"]) == ("headers_too_large", 20)
    loose = api.copy()
    loose.set("LIGHT_RESPONSE_MAX_ENCODINGS", 3, priority="cmdline")
    err = await refused(client(loose).request("GET", f"https://{API}/stacked"))
    assert err.details["reason"] == "encoding"  # three layers are read now; the body is no gzip


def test_retry_after_reads_seconds_and_dates_and_refuses_nonsense():
    assert retry_after_secs("12") == 12
    assert retry_after_secs(None) is None
    assert retry_after_secs("soon") is None
    assert retry_after_secs(gzip.__name__) is None
