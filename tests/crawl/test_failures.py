"""One failure, one name: the crawl's taxonomy (crawl/failures.py) names failures by type.

Each row is a real exception of the kind the transport, Scrapy or Twisted raises; the
message of every row is written to mislead a classifier that reads text, so a row passes
only if the type decides. Command-line errors name the flag, not the API parameter.
"""

from __future__ import annotations

import asyncio
import ssl

import pytest
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadTimeoutError,
    IgnoreRequest,
    NotSupported,
)
from scrapy.http import HtmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import DNSLookupError
from twisted.python.failure import Failure as TxFailure
from twisted.web.client import ResponseNeverReceived

from lightsearch.crawl.budget import BudgetExceeded
from lightsearch.crawl.failures import CodedRefusal, HostNotMappedError, ResponseRefused, classify
from lightsearch.crawl.guard import BlockedAddress, InvalidURL
from lightsearch.crawl.guard.resolver import ResolveTimeout
from lightsearch.crawl.middlewares.confine import RedirectRefused
from lightsearch.crawl.middlewares.encoding import EncodingRefused
from lightsearch.crawl.middlewares.robotstxt import RobotsDenied
from lightsearch.errors import LightSearchError, spelled
from lightsearch.plan.request import build_request
from lightsearch.surfaces.spelling import FLAGS

LURE = "timed out: too large, DOWNLOAD_MAXSIZE, robots, dns, certificate verify failed, refused"


def _wrapped(exc: BaseException) -> BaseException:
    """How Twisted hands a failure up: inside ResponseNeverReceived's list of Failures."""
    return ResponseNeverReceived([TxFailure(exc)])


def _http_error() -> HttpError:
    return HttpError(HtmlResponse("https://a.test/", status=503, body=b""), LURE)


ROWS = [
    (BlockedAddress(LURE, reason="private"), "blocked_address", "private"),
    (InvalidURL(LURE, reason="userinfo"), "invalid_url", "userinfo"),
    (InvalidURL(LURE, reason="proxy"), "invalid_url", "proxy"),
    (ResponseRefused("too_large", LURE, reason="header_count", limit=100), "too_large", "header_count"),
    (_wrapped(ResponseRefused("too_large", LURE, reason="body_bytes")), "too_large", "body_bytes"),
    (EncodingRefused(LURE, code="unsupported_encoding", declared="x-klingon"),
     "unsupported_encoding", "unsupported_encoding"),
    (BudgetExceeded("soft_deadline", LURE), "timeout", "soft_deadline"),
    (BudgetExceeded("decoded_bytes", LURE), "too_large", "decoded_bytes"),
    (BudgetExceeded("hops", LURE), "network_error", "hops"),
    (HostNotMappedError(LURE), "network_error", "not_in_offline_world"),
    (RedirectRefused(LURE), "redirect_refused", "off_source"),
    (RobotsDenied(LURE, code="robots_disallowed", origin="https://a.test"), "robots_disallowed", ""),
    (_http_error(), "http_status", "status"),
    (IgnoreRequest(LURE), "refused", "IgnoreRequest"),
    (NotSupported(LURE), "invalid_url", "unsupported_scheme"),
    (DownloadTimeoutError(LURE), "timeout", "timeout"),
    (_wrapped(DownloadTimeoutError(LURE)), "timeout", "timeout"),
    (asyncio.TimeoutError(LURE), "timeout", "timeout"),
    (ResolveTimeout(LURE), "timeout", "dns_timeout"),
    (DNSLookupError(LURE), "network_error", "dns"),
    (CannotResolveHostError(LURE), "network_error", "dns"),
    (_wrapped(ssl.SSLCertVerificationError(LURE)), "network_error", "tls"),
    (DownloadConnectionRefusedError(LURE), "network_error", "connect"),
    (DownloadCancelledError(LURE), "network_error", "cancelled"),
    (_wrapped(ValueError(LURE)), "network_error", "connection_lost"),
    (ValueError(LURE), "network_error", "ValueError"),
]


@pytest.mark.parametrize(("exc", "code", "reason"), ROWS, ids=[type(r[0]).__name__ + str(i) for i, r in enumerate(ROWS)])
def test_a_failure_is_named_by_its_type_not_its_message(exc, code, reason):
    named = classify(exc)
    assert (named.code, named.reason) == (code, reason)


def test_source_errors_name_tls_apart():
    """Light's source errors keep their own name for a TLS failure (tls_error)."""
    assert classify(_wrapped(ssl.SSLError(LURE))).source_code == "tls_error"
    assert classify(DNSLookupError(LURE)).source_code == "network_error"


def test_every_refusal_of_ours_carries_a_code():
    """Each of our IgnoreRequest subclasses is a CodedRefusal: none reaches classify bare."""
    import lightsearch.crawl.transport  # noqa: F401  (registers every refusal class)

    def leaves(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from leaves(sub)

    ours = [c for c in leaves(IgnoreRequest) if c.__module__.startswith("lightsearch.")]
    assert ours, "no refusal classes found"
    assert [c.__name__ for c in ours if not issubclass(c, CodedRefusal)] == []


def test_an_api_parameter_error_names_the_flag_on_the_command_line():
    with pytest.raises(LightSearchError) as info:
        build_request("ok", max_results=99)
    error = info.value.to_dict()["error"]
    assert error["details"]["parameter"] == "maxResults"
    shown = info.value.to_dict(FLAGS)["error"]
    assert shown["message"].startswith("--max-results must be between 1 and 20")
    assert shown["details"]["flag"] == "--max-results"
    assert "maxResults" not in shown["message"]
    # An error with no parameter is left as it is.
    plain = {"code": "timeout", "message": "the page did not arrive", "details": {}}
    assert spelled(plain, FLAGS) == plain


@pytest.mark.parametrize(("args", "flag"), [
    (["read", "--max-chars", "0", "https://example.org/"], "--max-chars"),
    (["read", "--start-index", "-3", "https://example.org/"], "--start-index"),
])
def test_scrapy_read_names_its_flags(tmp_path, args, flag, scrapy):
    proc = scrapy(*args[1:], cwd=tmp_path, name=args[0])
    assert proc.returncode == 2  # a value the command cannot take
    line = [x for x in proc.stdout.splitlines() + proc.stderr.splitlines() if "invalid_input" in x]
    assert line, proc.stdout + proc.stderr
    assert flag in line[0]
    assert "maxChars" not in line[0]
    assert "startIndex" not in line[0]
