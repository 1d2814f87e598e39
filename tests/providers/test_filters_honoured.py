"""Every provider honours a call's filters: Light (real crawls of loopback worlds), the
engines and Brave (replays of recorded answers that record what they were asked). No hit
on an excluded domain ever comes back, the request carries the engine's own operators or
parameters, the region is the call's, days drop what is dated outside them, and a domain
Light cannot search is a note."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import pytest

from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.light import LightSearch
from lightsearch.providers.news import NewsSearch
from lightsearch.surfaces.toolbox import Toolbox
from tests.conftest import ROBOTS_ALLOW, coroutine_test, home_html, make_world


def hosts(result):
    return [urlsplit(h["url"]).hostname for h in result["hits"]]


def on(host, domain):
    return host == domain or host.endswith("." + domain)


# ============================================================================= Light
def dated_page(title, day=None):
    meta = f'<meta property="article:published_time" content="{day}">' if day else ""
    body = "".join(f"<p>{title}: walrus herds haul out on the ice floes, paragraph {i} of a long report on "
                   f"walrus behaviour and the sea ice they rest on.</p>" for i in range(4))
    return {"body": f'<!doctype html><html lang="en"><head><meta charset="utf-8">{meta}<title>{title}</title>'
                    f"</head><body><article><h1>{title}</h1>{body}</article></body></html>"}


def walrus_world(origins, tmp_path, **settings):
    """One source on two origins (main.test and its blog.main.test), one on other.test."""
    sites = {
        "main.test": {"/": {"body": home_html([("/walrus-new", "walrus haul out report"),
                                               ("/walrus-old", "walrus haul out archive"),
                                               ("https://blog.main.test/walrus-blog", "walrus haul out blog")])},
                      "/walrus-new": dated_page("Walrus haul out report", "2024-01-10"),
                      "/walrus-old": dated_page("Walrus haul out archive", "2020-05-01")},
        "blog.main.test": {"/": {"body": home_html([("/walrus-blog", "walrus haul out blog")])},
                           "/walrus-blog": dated_page("Walrus haul out blog")},
        "other.test": {"/": {"body": home_html([("/walrus-other", "walrus haul out elsewhere")])},
                       "/walrus-other": dated_page("Walrus haul out elsewhere", "2023-06-01")},
    }
    for routes in sites.values():
        routes["/robots.txt"] = ROBOTS_ALLOW
    sources = [{"id": "main", "host": "main.test", "origins": ["https://main.test", "https://blog.main.test"]},
               {"id": "other", "host": "other.test"}]
    return make_world(origins, tmp_path, sites, sources, **settings)


@coroutine_test
async def test_light_unfiltered_reads_both_sources_and_both_origins(origins, tmp_path):
    settings = walrus_world(origins, tmp_path)
    result = await LightSearch.from_settings(settings).search("walrus haul out")
    assert {"main.test", "blog.main.test", "other.test"} <= set(hosts(result))


@coroutine_test
async def test_light_include_narrows_a_source_to_the_included_origin(origins, tmp_path):
    settings = walrus_world(origins, tmp_path)
    result = await LightSearch.from_settings(settings).search("walrus haul out", include_domains=["blog.main.test"])
    assert hosts(result) == ["blog.main.test"]
    assert result["meta"]["lightSearch"]["sources"]["selected"] == ["main"]
    # entered at the kept origin's home page: nothing of the others was even asked for
    assert origins.requests_for("main.test") == []
    assert origins.requests_for("other.test") == []
    assert "includeDomains: Light searches source main of its catalog" in result["notes"]


@coroutine_test
async def test_light_exclude_never_reads_nor_returns_the_excluded_origin(origins, tmp_path):
    settings = walrus_world(origins, tmp_path)
    result = await LightSearch.from_settings(settings).search("walrus haul out",
                                                              exclude_domains=["https://blog.main.test/"])
    assert "blog.main.test" not in hosts(result)
    assert {"main.test", "other.test"} <= set(hosts(result))
    # the home page links to the blog: the link is not admitted, so never requested
    assert origins.requests_for("blog.main.test") == []
    assert result["meta"]["filters"] == {"excludeDomains": ["blog.main.test"]}
    # excluding a whole source says so
    result = await LightSearch.from_settings(settings).search("walrus haul out", exclude_domains=["other.test"])
    assert "other.test" not in hosts(result)
    assert "excludeDomains: Light does not search source other of its catalog" in result["notes"]


@coroutine_test
async def test_light_a_domain_outside_the_catalog_is_a_note_not_silence(origins, tmp_path):
    settings = walrus_world(origins, tmp_path)
    result = await LightSearch.from_settings(settings).search("walrus haul out", include_domains=["example.org"])
    assert result["hits"] == []
    # outside the offline world it cannot be probed on the spot, and says why
    assert result["notes"][0].startswith("example.org is not in Light's catalog and is not probed (network_error")
    assert any("no source is left to search" in n for n in result["notes"])
    assert "example.org is not in Light's catalog" in result["text"]
    assert origins.log == []  # nothing was read
    # with a domain it holds as well, that one is searched and the other still named
    result = await LightSearch.from_settings(settings).search("walrus haul out",
                                                              include_domains=["example.org", "other.test"])
    assert hosts(result) == ["other.test"]
    assert result["notes"][0].startswith("example.org is not in Light's catalog")


@coroutine_test
async def test_light_days_drop_hits_dated_outside_and_keep_undated_ones(origins, tmp_path):
    settings = walrus_world(origins, tmp_path)
    result = await LightSearch.from_settings(settings).search("walrus haul out", after="2023-01-01",
                                                              before="2024-06-30")
    urls = [h["url"] for h in result["hits"]]
    assert "https://main.test/walrus-old" not in urls  # 2020
    assert {"https://main.test/walrus-new", "https://other.test/walrus-other",
            "https://blog.main.test/walrus-blog"} <= set(urls)
    assert ("after 2023-01-01, before 2024-06-30: 1 hit(s) dated outside the window were dropped; "
            "1 undated hit(s) were kept (their age is unknown)") in result["notes"]
    assert result["meta"]["lightSearch"]["undated"] == ["https://blog.main.test/walrus-blog"]


@coroutine_test
async def test_light_in_the_offline_world_through_the_front_door(offline_settings):
    async with Toolbox(offline_settings) as box:
        result = await box.invoke("web_search", {"query": "europa clipper earth flyby", "region": "us-en",
                                                 "includeDomains": ["https://WWW.NASA.gov/missions", "esa.int"]})
    assert result["hits"]
    assert all(on(h, "nasa.gov") for h in hosts(result))
    assert result["meta"]["lightSearch"]["sources"]["selected"] == ["nasa"]
    assert result["meta"]["filters"] == {"includeDomains": ["nasa.gov", "esa.int"], "region": "us-en"}
    assert any(n.startswith("esa.int is not in Light's catalog") for n in result["notes"])
    assert any(n.startswith("region us-en: Light does not search by region") for n in result["notes"])


# ============================================================================= engines
@pytest.fixture
def fresh(engine_replay):
    engine_replay.reset()
    return engine_replay


def engines(engine_replay, mode, **settings):
    return load_provider(merge_settings(engine_replay.settings(), {
        "WEB_SEARCH_PROVIDER": mode, "LOG_LEVEL": "ERROR", "WEB_SEARCH_SUSPENSION": None,
        "WEB_SEARCH_CACHE": None, "WEB_SEARCH_TAVILY_API_KEY": "tvly-test",
        "WEB_SEARCH_OPENROUTER_API_KEY": "or-test", **settings}), environ={})


@coroutine_test
async def test_duckduckgo_gets_site_operators_and_the_calls_region(fresh):
    ddg = engines(fresh, "ddg_html", WEB_SEARCH_REGION="de-de")
    result = await ddg.search("eino", max_results=10, exclude_domains=["github.com", "www.cloudwego.io"],
                              region="IL-he")
    params = fresh.requests_for("ddg_html")[0]["params"]
    assert params["q"] == "eino -site:github.com -site:cloudwego.io"
    assert params["kl"] == "il-he"
    assert result["hits"]
    assert not any(on(h, "github.com") or on(h, "cloudwego.io") for h in hosts(result))
    assert "4 hit(s) on excludeDomains (github.com, cloudwego.io) were dropped" in result["notes"]
    # the region was this call's: the next call without one has the deployment's
    await ddg.search("eino again")
    assert fresh.requests_for("ddg_html")[1]["params"]["kl"] == "de-de"
    assert fresh.requests_for("ddg_html")[1]["params"]["q"] == "eino again"
    included = await ddg.search("eino", max_results=10, include_domains=["cloudwego.io", "cloudwego.cn"])
    assert fresh.requests_for("ddg_html")[2]["params"]["q"] == "eino (site:cloudwego.io OR site:cloudwego.cn)"
    assert included["hits"]
    assert all(on(h, "cloudwego.io") or on(h, "cloudwego.cn") for h in hosts(included))


@coroutine_test
async def test_google_news_gets_operators_days_and_locale_and_filters_by_publisher(fresh):
    news = engines(fresh, "news")
    result = await news.search("選挙", max_results=20, include_domains=["asahi.com", "nhk.or.jp"],
                               after="2024-02-01", before="2024-02-10", region="jp-ja")
    params = fresh.requests_for("news")[0]["params"]
    assert params["q"] == "選挙 (site:asahi.com OR site:nhk.or.jp) after:2024-01-31 before:2024-02-11"
    assert (params["hl"], params["gl"], params["ceid"]) == ("ja-JP", "JP", "JP:ja")
    assert result["hits"]
    # Google's links are its own: the publisher's site is what is filtered
    publishers = {urlsplit(h["publisherUrl"]).hostname for h in result["hits"]}
    assert all(on(p, "asahi.com") or on(p, "nhk.or.jp") for p in publishers)
    assert any("outside includeDomains" in n for n in result["notes"])
    late = await news.search("選挙", max_results=20, after="2024-02-06")
    assert late["hits"] == []
    assert any(n.startswith("after 2024-02-06: ") and "0 undated" in n for n in late["notes"])
    excluded = await news.search("選挙", max_results=20, exclude_domains=["asahi.com"])
    assert not any(on(urlsplit(h["publisherUrl"]).hostname, "asahi.com") for h in excluded["hits"])
    assert "-site:asahi.com" in fresh.requests_for("news")[-1]["params"]["q"]


@coroutine_test
async def test_web_news_days_replace_the_default_window(fresh):
    news = NewsSearch.from_settings(merge_settings(fresh.settings(), {"WEB_NEWS_LIGHT": False,
                                                                      "WEB_SEARCH_CACHE": None}))
    await news.news("markets", after="2024-02-01")
    assert fresh.requests_for("news")[-1]["params"]["q"] == "markets after:2024-01-31"
    await news.news("markets", when="7d", region="gb-en")
    request = fresh.requests_for("news")[-1]["params"]
    assert request["q"] == "markets when:7d"
    assert request["ceid"] == "GB:en"


@coroutine_test
async def test_wikipedia_is_not_asked_when_the_filters_leave_it_out(fresh):
    wiki = engines(fresh, "wikipedia")
    result = await wiki.search("rust", include_domains=["nasa.gov"])
    assert fresh.count("wikipedia") == 0
    assert result["meta"]["engines"]["wikipedia"]["status"] == "skipped"
    assert any("wikipedia: skipped, its pages (en.wikipedia.org) are outside" in n for n in result["notes"])
    await wiki.search("rust", exclude_domains=["wikipedia.org"])
    assert fresh.count("wikipedia") == 0
    asked = await wiki.search("rust", include_domains=["wikipedia.org"], region="he-he")
    assert fresh.count("wikipedia") == 1
    assert fresh.requests_for("wikipedia")[0]["host"] == "he.wikipedia.org"  # the call's region's language
    assert asked["meta"]["engines"]["wikipedia"]["status"] == "ok"


@coroutine_test
async def test_hacker_news_gets_date_bounds_and_its_links_are_filtered(fresh):
    hn = engines(fresh, "hn")
    result = await hn.search("javascript", max_results=10, after="2016-01-01", before="2021-12-31",
                             exclude_domains=["htmldom.dev"])
    params = fresh.requests_for("hn")[0]["params"]
    assert params["numericFilters"] == "created_at_i>=1451606400,created_at_i<1640995200"
    dates = [h["publishedAt"] for h in result["hits"]]
    assert dates
    assert all("2016-01-01" <= d[:10] <= "2021-12-31" for d in dates)
    assert "htmldom.dev" not in hosts(result)
    assert any("dated outside the window were dropped" in n for n in result["notes"])


@coroutine_test
async def test_reddit_results_on_an_excluded_domain_are_dropped(fresh):
    result = await engines(fresh, "reddit").search("praw", exclude_domains=["reddit.com"])
    assert result["hits"] == []
    assert any(n.startswith("6 hit(s) on excludeDomains (reddit.com)") for n in result["notes"])


@coroutine_test
async def test_searxng_gets_site_operators_and_a_time_range(fresh):
    searx = engines(fresh, "searxng")
    after = (datetime.now(timezone.utc) - timedelta(days=3)).date().isoformat()
    result = await searx.search("rust ownership", include_domains=["rust-lang.org"], after=after)
    params = fresh.requests_for("searxng")[0]["params"]
    assert params["q"] == "rust ownership site:rust-lang.org"
    assert params["time_range"] == "week"
    assert hosts(result) == ["doc.rust-lang.org"]


@coroutine_test
async def test_tavily_gets_the_filters_natively_and_its_answer_is_filtered_too(fresh):
    result = await engines(fresh, "tavily").search("chorus effect", include_domains=None,
                                                   exclude_domains=["reddit.com"], after="2015-01-01",
                                                   before="2025-12-31", region="us-en")
    body = fresh.requests_for("tavily")[0]["params"]["json"]
    assert body["exclude_domains"] == ["reddit.com"]
    assert (body["start_date"], body["end_date"]) == ("2015-01-01", "2025-12-31")
    assert "include_domains" not in body
    # the recorded answer has reddit.com pages: they never come back
    assert result["hits"]
    assert not any(on(h, "reddit.com") for h in hosts(result))
    assert any(n.startswith("tavily: region us-en was not passed") for n in result["notes"])
    await engines(fresh, "tavily").search("chorus effect", include_domains=["unison.audio"])
    assert fresh.requests_for("tavily")[1]["params"]["json"]["include_domains"] == ["unison.audio"]


@coroutine_test
async def test_openrouter_citations_on_an_excluded_domain_are_dropped(fresh):
    result = await engines(fresh, "openrouter").search("rust ownership", exclude_domains=["blog.rust-lang.org"])
    assert hosts(result) == ["doc.rust-lang.org"]


@coroutine_test
async def test_fused_search_filters_every_engine_and_never_serves_an_unfiltered_cached_answer(fresh):
    fused = engines(fresh, "auto", WEB_SEARCH_CACHE="lightsearch.cache.searches.MemorySearchCache")
    plain = await fused.search("rust programming language", max_results=20)
    assert any(on(h, "wikipedia.org") for h in hosts(plain))
    asked = fresh.count("ddg_html")
    filtered = await fused.search("rust programming language", max_results=20,
                                  exclude_domains=["wikipedia.org", "github.com"])
    assert fresh.count("ddg_html") == asked + 1  # not the cached unfiltered answer
    assert filtered["cached"] is False
    assert not any(on(h, "wikipedia.org") or on(h, "github.com") for h in hosts(filtered))
    assert filtered["meta"]["engines"]["wikipedia"]["status"] == "skipped"
    assert filtered["meta"]["filters"] == {"excludeDomains": ["wikipedia.org", "github.com"]}
    again = await fused.search("rust programming language", max_results=20,
                               exclude_domains=["wikipedia.org", "github.com"])
    assert again["cached"] is True
    assert hosts(again) == hosts(filtered)


# ============================================================================= Brave
def brave(engine_replay, key, **settings):
    return load_provider({**engine_replay.settings(key), "BRAVE_SOURCE_FETCH": False, "LOG_LEVEL": "ERROR", **settings},
                         environ={})


@coroutine_test
async def test_brave_gets_operators_country_and_a_date_range(brave_replay):
    provider = brave(brave_replay, "filters", BRAVE_COUNTRY="us", BRAVE_SEARCH_LANG="en")
    result = await provider.search("hello world", max_results=20, exclude_domains=["wikipedia.org"],
                                   region="il-he", after="2020-01-01", before="2023-12-31")
    params = brave_replay.requests_for("filters")[0]["params"]
    assert params["q"] == "hello world -site:wikipedia.org"
    assert (params["country"], params["search_lang"]) == ("il", "he")
    assert params["freshness"] == "2020-01-01to2023-12-31"
    assert not any(on(h, "wikipedia.org") for h in hosts(result))
    dates = [h.get("publishedAt") for h in result["hits"]]
    assert all(d is None or "2020-01-01" <= d[:10] <= "2023-12-31" for d in dates)
    assert len(result["hits"]) == 10  # 20 recorded: 2 on wikipedia.org, 8 dated outside
    assert "2 hit(s) on excludeDomains (wikipedia.org) were dropped" in result["notes"]
    assert ("after 2020-01-01, before 2023-12-31: 8 hit(s) dated outside the window were dropped; "
            "4 undated hit(s) were kept (their age is unknown)") in result["notes"]
    # the next call has the deployment's country again; wt-wt is Brave's ALL
    await provider.search("hello world")
    assert brave_replay.requests_for("filters")[1]["params"]["country"] == "us"
    await provider.search("hello world", region="wt-wt", include_domains=["code.org", "github.com"],
                          before="2021-12-31")
    params = brave_replay.requests_for("filters")[2]["params"]
    assert params["country"] == "ALL"
    assert "search_lang" not in params
    assert params["q"] == "hello world (site:code.org OR site:github.com)"
    assert params["freshness"] == "1970-01-01to2021-12-31"


@coroutine_test
async def test_web_news_with_light_says_what_its_catalog_does_not_hold(fresh, offline_settings):
    settings = merge_settings(offline_settings, fresh.settings(), {"WEB_SEARCH_CACHE": None})
    result = await NewsSearch.from_settings(settings).news("europa clipper earth flyby", after="2020-01-01",
                                                           include_domains=["nasa.gov", "example.org"])
    assert fresh.requests_for("news")[0]["params"]["q"] == ("europa clipper earth flyby "
                                                            "(site:nasa.gov OR site:example.org) after:2019-12-31")
    assert result["hits"]
    assert all(on(h, "nasa.gov") for h in hosts(result))  # Google's recorded answer is from other publishers
    assert any(n.startswith("light: example.org is not in Light's catalog") for n in result["notes"])
    assert any("outside includeDomains" in n for n in result["notes"])
