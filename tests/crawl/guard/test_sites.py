"""May a site a call names be probed on the spot? The guard answers before any hop: every
refusal by its class of address or name, the host map kept for configured hosts, and any
string at all answered with None or a coded refusal, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.crawl.failures import CodedRefusal
from lightsearch.crawl.guard.sites import vet_site
from lightsearch.errors import LightSearchError
from lightsearch.filters import normalize_domain

MAP = {"offline.test": {"https": "127.0.0.1:8443"}, "Probe.Test.": {"https": "127.0.0.1:8443"}}


def vet(domain: str, *, map_only: bool = False, allowed=()):
    return vet_site(domain, host_map=MAP, map_only=map_only, mapped_allowed=allowed)


@pytest.mark.parametrize(("domain", "code", "reason"), [
    ("127.0.0.1", "blocked_address", "loopback"),
    ("2130706433", "blocked_address", "loopback"),  # 127.0.0.1 as one decimal number
    ("127.1", "blocked_address", "loopback"),
    ("0177.0.0.1", "blocked_address", "loopback"),
    ("10.20.30.40", "blocked_address", "private"),
    ("192.168.1.1", "blocked_address", "private"),
    ("100.100.100.200", "blocked_address", "metadata"),
    ("169.254.169.254", "blocked_address", "metadata"),
    ("localhost", "blocked_address", "internal-name"),
    ("printer.local", "blocked_address", "internal-name"),
    ("metadata.google.internal", "blocked_address", "internal-name"),
    ("router.home.arpa", "blocked_address", "internal-name"),
    ("intranet", "blocked_address", "internal-name"),
    ("offline.test", "blocked_address", "host-mapped"),
    ("probe.test", "blocked_address", "host-mapped"),
])
def test_refused_before_any_hop(domain, code, reason):
    refusal = vet(domain)
    assert refusal is not None, domain
    assert (refusal.code, refusal.reason) == (code, reason)


def test_a_public_name_may_be_probed_and_the_map_only_for_the_hosts_configured():
    assert vet("docs.python.org") is None
    assert vet("xn--bcher-kva.example") is None
    assert vet("probe.test", allowed={"probe.test"}) is None
    assert vet("offline.test", allowed={"probe.test"}).reason == "host-mapped"
    # an offline world holds only what its map names
    assert vet("probe.test", map_only=True, allowed={"probe.test"}) is None
    refusal = vet("docs.python.org", map_only=True)
    assert (refusal.code, refusal.reason) == ("network_error", "not_in_offline_world")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(max_size=80) | st.from_regex(r"[a-z0-9_.-]{1,40}", fullmatch=True))
def test_any_domain_is_an_answer_never_an_exception(text):
    for domain in (text, text.lower().strip(".")):
        refusal = vet(domain, map_only=bool(len(text) % 2))
        assert refusal is None or isinstance(refusal, CodedRefusal)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.text(max_size=60))
def test_what_a_call_may_write_is_refused_or_a_public_looking_name(text):
    """Through the filters, as a call's includeDomains arrives: an address the guard would
    refuse is never let through as a site to probe."""
    try:
        domain = normalize_domain(text)
    except LightSearchError as exc:  # the filters' own structured refusal
        refused = exc.code
    else:
        refused = None
    if refused is not None:
        assert refused == "invalid_input"
        return
    refusal = vet(domain)
    if refusal is None:
        assert "." in domain
        assert not domain.replace(".", "").isdigit()
