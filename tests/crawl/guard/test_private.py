"""A user's opt-in for a private site of their own: what it lifts, for which origin only,
and what it never lifts (the rule of crawl/guard/private.py, judged by the guard)."""

from __future__ import annotations

import pytest

from lightsearch.crawl.guard import BlockedAddress, GuardRefusal, InvalidURL
from lightsearch.crawl.guard.private import lifts
from lightsearch.crawl.guard.urls import Target, check_url
from lightsearch.crawl.transport import LightDownloadHandler
from lightsearch.plan.catalog import Source
from lightsearch.plan.frontier import CrawlFrontier

OWN = "http://127.0.0.1:8099"


@pytest.mark.parametrize(("url", "origins"), [
    ("http://127.0.0.1:8099/notes", {OWN}),                        # loopback, and a port outside the list
    ("http://192.168.1.20/wiki", {"http://192.168.1.20"}),         # a private network
    ("http://wiki.lan/", {"http://wiki.lan"}),                      # an internal name
    ("http://intranet:8081/", {"http://intranet:8081"}),            # a single-label name
    ("http://[fd00::5]/", {"http://fd00::5"}),                      # unique-local IPv6 (origin as the catalog writes it)
])
def test_the_opt_in_lifts_a_private_site_of_its_own_origin(url, origins):
    with pytest.raises(GuardRefusal):
        check_url(url)  # refused as every private destination is
    target = check_url(url, private_origins=origins)
    assert target.private is True


@pytest.mark.parametrize(("url", "origins", "error"), [
    ("http://127.0.0.1:8100/", {OWN}, InvalidURL),                  # another port of the same host
    ("https://127.0.0.1:8099/", {OWN}, InvalidURL),                 # another scheme
    ("http://127.0.0.2:8099/", {OWN}, InvalidURL),                  # another host
    ("http://169.254.169.254/latest/", {"http://169.254.169.254"}, BlockedAddress),  # cloud metadata: never
    ("http://metadata.google.internal/", {"http://metadata.google.internal"}, BlockedAddress),
    ("http://224.0.0.1/", {"http://224.0.0.1"}, BlockedAddress),   # multicast
    ("http://[::ffff:127.0.0.1]/", {"http://::ffff:127.0.0.1"}, BlockedAddress),  # IPv4 in IPv6
    ("http://user:pw@127.0.0.1:8099/", {OWN}, InvalidURL),          # credentials are never sent
])
def test_the_opt_in_is_that_origin_alone_and_never_the_rest(url, origins, error):
    with pytest.raises(error):
        check_url(url, private_origins=origins)


def test_resolved_answers_of_a_private_site_are_judged_by_the_same_rule():
    own = Target("http", "wiki.corp.example", 80, private=True)
    assert LightDownloadHandler.choose(own, ["10.0.0.7", "127.0.0.1"], "http://wiki.corp.example/") == "10.0.0.7"
    with pytest.raises(BlockedAddress):  # a name of a public site that resolves inside the network
        LightDownloadHandler.choose(Target("http", "wiki.corp.example", 80), ["10.0.0.7"], "http://wiki.corp.example/")
    with pytest.raises(BlockedAddress):  # the metadata service, whatever the opt-in
        LightDownloadHandler.choose(own, ["10.0.0.7", "169.254.169.254"], "http://wiki.corp.example/")
    assert not lifts("metadata")
    assert not lifts("multicast")
    assert lifts("loopback")


def test_only_a_crawl_given_the_source_carries_its_origins():
    own = Source(id="user-notes", name="Notes", language="en", kind="reference", origins=(OWN,),
                 seeds=(OWN + "/",), allow_private=True)
    public = Source(id="user-blog", name="Blog", language="en", kind="reference",
                    origins=("https://blog.example.org",), seeds=("https://blog.example.org/",))
    assert CrawlFrontier([own, public]).private_origins == {OWN}
    assert CrawlFrontier([public]).private_origins == frozenset()
    assert CrawlFrontier().private_origins == frozenset()  # web_fetch's crawls
