"""reliability.md §9.1, every row: the verdict, at both layers, and no connection when refused.

Each URL goes (a) through ``WebFetch.fetch`` and (b) straight into a Scrapy crawl with no
web_fetch pre-check, so the download handler's own guard is tested too. In both, every
address the guard lets through is connected to a loopback counting server
(:mod:`tests.fetch_helpers`), so "refused" is asserted as zero connections there.
Names resolve only from configured answers; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from scrapy import Request
from scrapy.exceptions import NotSupported

from lightsearch.crawl.guard import BlockedAddress, GuardRefusal, InvalidURL
from lightsearch.crawl.guard.addresses import classify
from lightsearch.crawl.guard.urls import Target, check_url
from lightsearch.errors import LightSearchError
from lightsearch.plan.catalog import Source
from lightsearch.providers.fetch import WebFetch
from tests.conftest import coroutine_test
from tests.fetch_helpers import CountingServer, StandInHandler, crawl_one, stand_in_settings

PUBLIC = "93.184.215.14"
BLOCKED, INVALID, ALLOW = "blocked_address", "invalid_url", "allow"

# (row, url, verdict, host the server must see when allowed)
ROWS = [
    (1, "http://127.0.0.1/", BLOCKED, None),
    (2, "http://127.1/", BLOCKED, None),
    (3, "http://0x7f.1/", BLOCKED, None),
    (4, "http://2130706433/", BLOCKED, None),
    (5, "http://017700000001/", BLOCKED, None),
    (6, "http://0177.0.0.1/", BLOCKED, None),
    (7, "http://0x7f000001/", BLOCKED, None),
    (8, "http://127.000.000.001/", BLOCKED, None),
    (9, "http://0x7f.0x0.0x00000000.0x01/", BLOCKED, None),
    (10, "http://0/", BLOCKED, None),
    (10, "http://0.0.0.0:8080/", BLOCKED, None),
    (11, "http://0.1.2.3/", BLOCKED, None),
    (12, "http://10.0.0.1/", BLOCKED, None),
    (12, "http://172.16.0.1/", BLOCKED, None),
    (12, "http://192.168.1.1/", BLOCKED, None),
    (13, "http://100.64.0.1/", BLOCKED, None),
    (13, "http://100.100.100.200/", BLOCKED, None),
    (14, "http://169.254.169.254/latest/meta-data/", BLOCKED, None),
    (15, "http://169.254.170.2/v2/credentials", BLOCKED, None),
    (16, "http://192.0.0.192/", BLOCKED, None),
    (17, "http://192.0.2.1/", BLOCKED, None),
    (17, "http://198.18.0.1/", BLOCKED, None),
    (17, "http://203.0.113.1/", BLOCKED, None),
    (18, "http://224.0.0.1/", BLOCKED, None),
    (18, "http://240.0.0.1/", BLOCKED, None),
    (18, "http://255.255.255.255/", BLOCKED, None),
    (19, "http://192.88.99.1/", BLOCKED, None),
    (20, "http://[::1]/", BLOCKED, None),
    (20, "http://[0:0:0:0:0:0:0:1]/", BLOCKED, None),
    (20, "http://[::]/", BLOCKED, None),
    (21, "http://[::ffff:127.0.0.1]/", BLOCKED, None),
    (21, "http://[::ffff:7f00:1]/", BLOCKED, None),
    (22, "http://[::ffff:169.254.169.254]/", BLOCKED, None),
    (23, "http://[::127.0.0.1]/", BLOCKED, None),
    (24, "http://[::ffff:0:7f00:1]/", BLOCKED, None),
    (25, "http://[64:ff9b::7f00:1]/", BLOCKED, None),
    (25, "http://[64:ff9b::a9fe:a9fe]/", BLOCKED, None),
    (26, "http://[64:ff9b:1:a00:0:100::]/", BLOCKED, None),
    (27, "http://[2002:7f00:1::]/", BLOCKED, None),
    (27, "http://[2002:a9fe:a9fe::]/", BLOCKED, None),
    (28, "http://[2001:0:4136:e378:8000:63bf:3f57:fdf2]/", BLOCKED, None),
    (29, "http://[fd00:ec2::254]/", BLOCKED, None),
    (30, "http://[fe80::1]/", BLOCKED, None),
    (30, "http://[fe80::1%25eth0]/", INVALID, None),
    (31, "http://[fec0::1]/", BLOCKED, None),
    (31, "http://[ff02::1]/", BLOCKED, None),
    (31, "http://[100::1]/", BLOCKED, None),
    (32, "http://localhost/", BLOCKED, None),
    (32, "http://LOCALHOST./", BLOCKED, None),
    (32, "http://a.localhost/", BLOCKED, None),
    (33, "http://metadata.google.internal/computeMetadata/v1/", BLOCKED, None),
    (34, "http://⑯⑨。②⑤④。⑯⑨。②⑤④/", BLOCKED, None),
    (35, "http://１２７.０.０.１/", BLOCKED, None),
    (36, "http://127.0.0.1.nip.io/", BLOCKED, None),  # the stub resolver answers 127.0.0.1
    (37, "http://evil.com\\@good.com/", ALLOW, "evil.com"),  # WHATWG/w3lib host: evil.com
    (38, "http://good.com@127.0.0.1/", INVALID, None),
    (39, "http://user:pass@example.com/", INVALID, None),
    (40, "http://127.0.0.1:80\\@good.com/", BLOCKED, None),
    (41, "http://good.com#@127.0.0.1/", ALLOW, "good.com"),
    (42, "http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", INVALID, None),
    (43, "http://exa\tmple.com/", ALLOW, "example.com"),
    (44, "http://foo.example.com%00.evil/", INVALID, None),
    (44, "http://foo.example.com\x00.evil/", INVALID, None),
    (45, "file:///etc/passwd", INVALID, None),
    (45, "gopher://127.0.0.1:6379/_", INVALID, None),
    (45, "dict://x:11211/", INVALID, None),
    (45, "ftp://x/", INVALID, None),
    (45, "s3://b/k", INVALID, None),
    (45, "data:text/html,x", INVALID, None),
    (46, "http://example.com:22/", INVALID, None),
    (46, "http://example.com:0/", INVALID, None),
    (46, "http://example.com:65536/", INVALID, None),
    (46, "http://example.com:-1/", INVALID, None),
    (46, "http://example.com:https/", INVALID, None),
    (47, "HTTP://EXAMPLE.COM:443/", ALLOW, "example.com:443"),  # 443 is on the port allowlist
    (48, "http://xn--jv8h.example.com/", ALLOW, "xn--jv8h.example.com"),
    (48, "http://🔐.example.com/", ALLOW, "xn--jv8h.example.com"),
    (None, "http://[]/", INVALID, None),
    (None, "http://[[example.net]]/", INVALID, None),
    (None, "http://1.2.3.4.5/", INVALID, None),
    (None, "http://256.1.1.1/", INVALID, None),
    (None, "http://intranet/", BLOCKED, None),  # single-label names are internal
]
ANSWERS = {
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "evil.com": [PUBLIC], "good.com": [PUBLIC], "example.com": [PUBLIC],
    "xn--jv8h.example.com": [PUBLIC], "intranet": [PUBLIC],
}


def _id(row):
    return f"{row[0]}-{row[1]!r}"


@pytest.fixture(scope="module")
def counting():
    server = CountingServer().start()
    yield server
    server.stop()


def _settings(counting):
    return stand_in_settings(counting, LIGHT_RESOLVER_OVERRIDES=ANSWERS)


@pytest.mark.parametrize(("row", "url", "verdict", "host"), ROWS, ids=[_id(r) for r in ROWS])
@coroutine_test
async def test_web_fetch_verdict_and_no_connection(counting, row, url, verdict, host):
    fetcher = WebFetch.from_settings(_settings(counting))
    if verdict == ALLOW:
        result = await fetcher.fetch(url, robots=False)
        assert result["title"] == "Stand-in page"
        assert [r["host"] for r in counting.requests] == [host]
        assert StandInHandler.connected == [(PUBLIC, int(host.partition(":")[2] or 80))]
        return
    with pytest.raises(LightSearchError) as info:
        await fetcher.fetch(url, robots=False)
    assert info.value.code == verdict, info.value.to_dict()
    assert counting.connections == 0
    assert StandInHandler.connected == []


@pytest.mark.parametrize(("row", "url", "verdict", "host"), ROWS, ids=[_id(r) for r in ROWS])
@coroutine_test
async def test_download_handler_guards_every_request_itself(counting, row, url, verdict, host):
    try:
        request_url = Request(url).url
    except ValueError:
        assert verdict == INVALID  # Scrapy cannot even build the request
        return
    outcome = await crawl_one(request_url, _settings(counting))
    if verdict == ALLOW:
        assert outcome["response"].status == 200
        assert counting.connections == 1
        return
    error = outcome.get("error")
    if row == 45:  # no download handler exists for the scheme at all
        assert isinstance(error, NotSupported), outcome
    else:
        assert isinstance(error, GuardRefusal), outcome
        assert error.code == verdict
    assert counting.connections == 0


def test_checks_run_on_the_normalised_url_not_the_raw_string():
    # urllib reads good.com here; Scrapy's Request (WHATWG, w3lib) will connect to evil.com.
    assert check_url(Request("http://evil.com\\@good.com/").url).host == "evil.com"
    assert check_url(Request("http://exa\tmple.com/").url).host == "example.com"


def test_homograph_is_not_the_admitted_origin():
    """Row 49: the Cyrillic look-alike normalises to its own punycode host, which a
    source admitting amazon.com does not admit."""
    source = Source(id="amazon", name="Amazon", language="en", kind="reference",
                    origins=("http://amazon.com",), seeds=("http://amazon.com/",))
    url = Request("http://аmazon.com/").url
    assert check_url(url).host == "xn--mazon-3ve.com"
    assert not source.admits(url)
    assert source.admits("http://amazon.com/")


@coroutine_test
async def test_environment_proxy_is_ignored(counting, monkeypatch):
    """Row 50: HTTP(S)_PROXY would let a proxy resolve the name past the guard."""
    proxy = CountingServer().start()
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.port}")
        result = await WebFetch.from_settings(_settings(counting)).fetch("http://example.com/")
        assert result["title"] == "Stand-in page"
        assert proxy.connections == 0
        assert counting.connections >= 1
    finally:
        proxy.stop()


@coroutine_test
async def test_credentials_and_cookies_never_leave(counting):
    """No Authorization, Proxy-Authorization or Cookie header reaches any origin, even
    when a component or setting adds one."""
    settings = _settings(counting)
    settings["DEFAULT_REQUEST_HEADERS"] = {"Authorization": "Bearer secret", "Cookie": "session=1",
                                           "Proxy-Authorization": "Basic eDp5"}
    outcome = await crawl_one("http://example.com/", settings)
    assert outcome["response"].status == 200
    sent = {k.lower() for k in counting.requests[0]["headers"]}
    assert not sent & {"authorization", "cookie", "proxy-authorization"}


# ------------------------------------------------------------------ hostile input
# Forms fuzzing found: a port or IPv4 part in non-ASCII digits
# (``str.isdigit()`` is true for "①"), a host past Python's 4,300-digit int limit, and
# percent-escaped hosts, which were refused with the misleading reason "zone-id".
DIGIT_LIMIT_HOST = "http://" + "1" * 4301 + "/"
HOSTILE = [
    ("http://.①:", INVALID, "bad-host"),
    ("http://a.①/", INVALID, "bad-ipv4"),  # IDNA maps ① to 1: "a.1" ends in a number
    ("http://٣.example/", ALLOW, None),  # an Arabic-Indic digit is a letter of a name here
    (DIGIT_LIMIT_HOST, INVALID, "bad-ipv4"),
    ("http://1.1." + "9" * 5000 + "/", INVALID, "bad-ipv4"),
    ("http://0x" + "f" * 5000 + "/", INVALID, "bad-ipv4"),
    ("http://0" + "7" * 5000 + "/", INVALID, "bad-ipv4"),
    ("http://" + "0" * 5000 + "177.0.0.1/", BLOCKED, "loopback"),  # leading zeros are octal
    ("http://%31%32%37.0.0.1/", BLOCKED, "loopback"),  # what a WHATWG parser reads
    ("http://%31%32%37%2e%30%2e%30%2e%31/", BLOCKED, "loopback"),
    ("http://%3a%3a1/", BLOCKED, "loopback"),
    ("http://exa%6dple.com/", INVALID, "percent-encoded-host"),
    ("http://foo.example.com%00.evil/", INVALID, "percent-encoded-host"),
    ("http://%25%36%31.example/", INVALID, "percent-encoded-host"),  # escaped twice
    ("http://[fe80::1%25eth0]/", INVALID, "zone-id"),
]


@pytest.mark.parametrize(("url", "verdict", "reason"), HOSTILE, ids=[repr(h[0][:30]) for h in HOSTILE])
def test_hostile_hosts_have_a_structured_verdict(url, verdict, reason):
    request_url = Request(url).url
    if verdict == ALLOW:
        assert check_url(request_url).host
        return
    with pytest.raises(GuardRefusal) as info:
        check_url(request_url)
    assert (info.value.code, info.value.reason) == (verdict, reason)
    assert len(str(info.value)) < 200  # the attacker's host is quoted and capped
    assert str(info.value).isprintable()


@pytest.mark.parametrize("url", ["http://.①:", DIGIT_LIMIT_HOST, "http://exa%6dple.com/",
                                 "http://%31%32%37.0.0.1/"])
@coroutine_test
async def test_web_fetch_refuses_hostile_hosts_with_a_code(counting, url):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(_settings(counting)).fetch(url, robots=False)
    assert info.value.code in (INVALID, BLOCKED)  # (the long host is over web_fetch's URL length)
    assert info.value.details.get("reason") not in ("zone-id", "malformed")
    # The handler's own guard (URLLENGTH_LIMIT off, so the long URL is not dropped first).
    outcome = await crawl_one(Request(url).url, {**_settings(counting), "URLLENGTH_LIMIT": 0})
    assert isinstance(outcome.get("error"), GuardRefusal), outcome
    assert counting.connections == 0


# Property: whatever string arrives (tool input, a Location header, a crawled href),
# check_url answers with a Target or one of the guard's structured refusals.
SEEDS = [row[1] for row in ROWS] + [h[0] for h in HOSTILE if len(h[0]) < 200]
_HOST_CHARS = st.sampled_from([*"0123456789abcdefxX.-_:[]%@\\/#?①٣０１２３。\x00\t ", "%25", "%2e", "0x"])
_hosts = st.lists(_HOST_CHARS, max_size=30).map("".join)
_ports = st.sampled_from(["", ":", ":80", ":8080", ":①", ":0", ":99999999999", ":-1", ": 80"])
_built = st.builds(lambda scheme, host, port, path: f"{scheme}{host}{port}{path}",
                   st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "//", "http:/", ""]),
                   _hosts, _ports, st.sampled_from(["/", "", "/a?b#c", "\\x"]))
_mutated = st.builds(lambda seed, at, text: seed[:at] + text + seed[at:],
                     st.sampled_from(SEEDS), st.integers(0, 60), st.text(max_size=6))
URLS = st.one_of(st.text(max_size=120), _built, _mutated)


def _assert_structured(url: str) -> None:
    try:
        target = check_url(url)
    except (InvalidURL, BlockedAddress) as exc:
        refusal = exc
    else:
        refusal = None
    if refusal is not None:
        assert refusal.reason
        assert refusal.code in (INVALID, BLOCKED)
        assert len(str(refusal)) < 300
        assert str(refusal).isprintable()
        return
    assert isinstance(target, Target)
    assert target.scheme in ("http", "https")
    assert target.host == target.host.lower()
    assert target.port in (80, 443, 8080, 8443)
    assert target.address is None or classify(target.address) is None


@example(DIGIT_LIMIT_HOST)
@example("http://.①:")
@example("http://%31%32%37.0.0.1/")
@given(URLS)
@hypothesis_settings(derandomize=True, max_examples=60, deadline=None)
def test_check_url_property_any_string_gets_a_structured_answer(url):
    _assert_structured(url)


@example(DIGIT_LIMIT_HOST)
@example("http://.①:")
@given(URLS)
@hypothesis_settings(derandomize=True, max_examples=40, deadline=None)
def test_check_url_property_on_what_scrapy_requests(url):
    try:
        request_url = Request(url).url
    except (ValueError, TypeError):
        return  # Scrapy refuses to build it; web_fetch reports that as invalid_url
    _assert_structured(request_url)
