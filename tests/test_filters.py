"""A call's filters (lightsearch/filters.py): what a model writes for a domain, a region or a
day taken as what it means or refused naming the parameter; the tool schemas that carry
them; the envelope that makes sure no hit on an excluded domain is ever returned."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from lightsearch.errors import LightSearchError
from lightsearch.evidence.envelope import build_envelope
from lightsearch.evidence.model import Evidence, ResultLimits
from lightsearch.filters import (
    MAX_DOMAIN_TEXT,
    MAX_DOMAINS,
    Filters,
    build_filters,
    matches,
    normalize_domain,
    site_operators,
    with_operators,
)
from lightsearch.plan.request import build_request
from lightsearch.surfaces.tools import check_arguments, tool_specs
from tests.conftest import coroutine_test


def invalid(fn, *args, **kwargs) -> LightSearchError:
    with pytest.raises(LightSearchError) as info:
        fn(*args, **kwargs)
    assert info.value.code == "invalid_input"
    return info.value


# ----------------------------------------------------------------------------- domains
@pytest.mark.parametrize(("written", "domain"), [
    ("nasa.gov", "nasa.gov"),
    ("NASA.Gov", "nasa.gov"),
    ("  nasa.gov  ", "nasa.gov"),
    ("https://www.nasa.gov/missions/artemis?x=1#top", "nasa.gov"),
    ("www.nasa.gov/missions", "nasa.gov"),
    ("http://science.nasa.gov:8080/", "science.nasa.gov"),
    ("*.nasa.gov", "nasa.gov"),
    (".nasa.gov", "nasa.gov"),
    ("nasa.gov.", "nasa.gov"),
    ("bücher.de", "xn--bcher-kva.de"),
    ("https://BÜCHER.de/x", "xn--bcher-kva.de"),
    ("gov", "gov"),
    ("www", "www"),
])
def test_a_domain_as_a_model_writes_it(written, domain):
    assert normalize_domain(written) == domain


@pytest.mark.parametrize("written", ["", "   ", "not a domain", "a..b", "-bad.com", "bad-.com", "x" * 64 + ".com",
                                     "https://", "a!b.com", "exa mple.com"])
def test_what_is_not_a_domain_is_refused_naming_the_parameter(written):
    error = invalid(normalize_domain, written, "excludeDomains")
    assert error.details["parameter"] == "excludeDomains"
    assert error.message.startswith("excludeDomains")


def test_a_domain_matches_itself_and_its_subdomains_only():
    assert matches("nasa.gov", "nasa.gov")
    assert matches("science.nasa.gov", "nasa.gov")
    assert matches("a.b.nasa.gov", "gov")
    assert not matches("evilnasa.gov", "nasa.gov")
    assert not matches("nasa.gov.evil.com", "nasa.gov")
    assert not matches(None, "nasa.gov")


def test_include_and_exclude_in_one_call():
    filters = build_filters(["nasa.gov", "esa.int"], ["science.nasa.gov"])
    assert filters.admits("https://www.nasa.gov/x")
    assert filters.admits("https://sci.esa.int/")
    assert filters.verdict("https://science.nasa.gov/moon") == "excluded"
    assert filters.verdict("https://example.org/") == "not_included"
    # a hit standing for another site's page (a Google News link) is judged by both
    assert filters.admits("https://news.google.com/rss/articles/x", "https://www.nasa.gov")
    assert filters.verdict("https://www.nasa.gov/x", "https://science.nasa.gov") == "excluded"
    assert Filters(exclude_domains=("xn--bcher-kva.de",)).verdict("https://bücher.de/") == "excluded"


def test_conflicts_and_bounds_are_refused_naming_the_parameter():
    error = invalid(build_filters, ["science.nasa.gov"], ["nasa.gov"])
    assert error.details["parameter"] == "includeDomains"
    assert "excluded too" in error.message
    error = invalid(build_filters, [f"d{i}.com" for i in range(MAX_DOMAINS + 1)])
    assert error.details["parameter"] == "includeDomains"
    assert build_filters(None, [f"d{i}.com" for i in range(MAX_DOMAINS)]).exclude_domains[-1] == "d19.com"
    assert invalid(build_filters, None, 5).details["parameter"] == "excludeDomains"
    long = "https://nasa.gov/" + "a" * (MAX_DOMAIN_TEXT - 17)
    assert build_filters([long]).include_domains == ("nasa.gov",)  # a model's URL with a long path
    assert invalid(build_filters, [long + "a"]).details["limit"] == MAX_DOMAIN_TEXT
    assert invalid(build_filters, region="english").details["parameter"] == "region"
    assert invalid(build_filters, after="2024-02-30").details["parameter"] == "after"
    assert invalid(build_filters, before="yesterday").details["parameter"] == "before"
    error = invalid(build_filters, after="2024-03-01", before="2024-02-01")
    assert error.details["parameter"] == "after"
    ok = build_filters(["nasa.gov", "https://www.NASA.gov/x"], region="IL-HE", after=date(2024, 1, 1),
                       before="2024-01-31")
    assert ok.include_domains == ("nasa.gov",)
    assert ok.to_dict() == {"includeDomains": ["nasa.gov"], "region": "il-he", "after": "2024-01-01",
                            "before": "2024-01-31"}
    assert ok.in_window(date(2024, 1, 1))
    assert ok.in_window(date(2024, 1, 31))
    assert not ok.in_window(date(2024, 2, 1))


def test_the_request_carries_the_filters():
    request = build_request("europa", include_domains=["nasa.gov"], after="2024-01-01")
    assert request.filters.include_domains == ("nasa.gov",)
    assert invalid(build_request, "europa", region="xx").details["parameter"] == "region"


def domain_or_refusal(text: str) -> str | LightSearchError:
    try:
        return normalize_domain(text)
    except LightSearchError as exc:
        return exc


@given(st.text(max_size=300))
def test_any_text_is_a_domain_or_a_structured_refusal(text):
    domain = domain_or_refusal(text)
    if isinstance(domain, LightSearchError):
        assert domain.code == "invalid_input"
        assert domain.details["parameter"] == "includeDomains"
        return
    assert domain == normalize_domain(domain)  # the normal form is a fixed point
    assert Filters(include_domains=(domain,)).admits(f"https://{domain}/page")
    assert Filters(exclude_domains=(domain,)).verdict(f"https://sub.{domain}/") == "excluded"


# ----------------------------------------------------------------------------- engine operators
def test_site_operators_fit_the_engine_or_leave_the_filtering_to_us():
    filters = build_filters(["nasa.gov", "esa.int"], ["pinterest.com"])
    assert site_operators(filters) == ("(site:nasa.gov OR site:esa.int) -site:pinterest.com", True)
    assert with_operators("europa", build_filters(["nasa.gov"])) == ("europa site:nasa.gov", True)
    many = build_filters([f"domain{i}.example.com" for i in range(20)], [f"x{i}.com" for i in range(20)])
    ops, included = site_operators(many, max_chars=200)
    assert not included
    assert "site:domain" not in ops
    assert ops.startswith("-site:x0.com")
    assert len(ops) <= 200
    ops, _ = site_operators(build_filters(None, [f"x{i}.com" for i in range(20)]), max_words=3)
    assert ops.split() == ["-site:x0.com", "-site:x1.com", "-site:x2.com"]


# ----------------------------------------------------------------------------- the tool schemas
def test_the_schemas_carry_the_filters_with_bounds():
    search, news, _ = tool_specs()
    for spec in (search, news):
        props = spec.input_schema["properties"]
        assert props["includeDomains"]["maxItems"] == MAX_DOMAINS
        assert props["excludeDomains"]["items"]["type"] == "string"
        assert {"region", "after", "before"} <= set(props)
        Draft202012Validator.check_schema(spec.input_schema)
        strict = spec.render("openai-strict")["function"]["parameters"]["properties"]
        assert strict["includeDomains"]["type"] == ["array", "null"]
        assert "at most 20" in strict["includeDomains"]["description"]
        assert "pattern" not in strict["after"]


def test_a_call_with_filters_is_checked_and_normalised():
    search, _news, _ = tool_specs()
    args = check_arguments(search, {"query": "europa", "includeDomains": ["https://WWW.NASA.gov/x", "nasa.gov"],
                                    "excludeDomains": None, "region": "GB-EN", "after": "2024-01-01"})
    assert args == {"query": "europa", "maxResults": 8, "includeDomains": ["nasa.gov"], "region": "gb-en",
                    "after": "2024-01-01"}
    for bad, parameter, words in [
        ({"includeDomains": ["not a domain"]}, "includeDomains", "is not a domain"),
        ({"excludeDomains": "nasa.gov"}, "excludeDomains", "must be of type array"),
        ({"includeDomains": [f"d{i}.com" for i in range(21)]}, "includeDomains", "give at most 20"),
        ({"region": "english"}, "region", "country-language such as us-en"),
        ({"after": "1 Jan 2024"}, "after", "a day written YYYY-MM-DD"),
        ({"before": "2024-13-01"}, "before", "a day written YYYY-MM-DD"),
        ({"after": "2024-02-01", "before": "2024-01-01"}, "after", "must not be later than before"),
    ]:
        error = invalid(check_arguments, search, {"query": "europa", **bad})
        assert error.details["parameter"] == parameter, bad
        assert words in error.message, (bad, error.message)
        assert error.details["errors"][0]["field"].split(".")[0] == parameter


def test_news_days_replace_the_default_window():
    _, news, _ = tool_specs()
    assert check_arguments(news, {"query": "x"})["when"] == "1d"
    args = check_arguments(news, {"query": "x", "after": "2024-01-01"})
    assert "when" not in args
    assert check_arguments(news, {"query": "x", "after": "2024-01-01", "when": "7d"})["when"] == "7d"


# ----------------------------------------------------------------------------- the envelope
def test_the_envelope_never_returns_a_hit_the_filters_do_not_admit():
    evidence = [Evidence(title=f"t{i}", url=url, source="s", snippet="europa clipper") for i, url in enumerate([
        "https://www.nasa.gov/a", "https://science.nasa.gov/b", "https://example.org/c",
        "https://news.google.com/rss/articles/x"])]
    evidence[3] = Evidence(title="t3", url=evidence[3].url, source="s", snippet="europa",
                           extra={"publisherUrl": "https://www.nasa.gov"})
    filters = build_filters(["nasa.gov"], ["science.nasa.gov"])
    result = build_envelope(provider="x", query="europa clipper", evidence=evidence, limits=ResultLimits(),
                            filters=filters)
    assert [h["url"] for h in result["hits"]] == ["https://www.nasa.gov/a", "https://news.google.com/rss/articles/x"]
    assert "1 hit(s) on excludeDomains (science.nasa.gov) were dropped" in result["notes"]
    assert "1 hit(s) outside includeDomains (nasa.gov) were dropped" in result["notes"]
    assert result["meta"]["filters"] == {"includeDomains": ["nasa.gov"], "excludeDomains": ["science.nasa.gov"]}
    assert "science.nasa.gov" not in result["text"].split("excludeDomains")[0]
    plain = build_envelope(provider="x", query="europa", evidence=evidence, limits=ResultLimits())
    assert len(plain["hits"]) == 4
    assert "filters" not in plain["meta"]


# ----------------------------------------------------------------------------- a provider of one's own
class ProviderWithoutFilters:
    """A class-path provider written before the filters existed."""

    provider = "mine"

    def __init__(self, settings):
        self.settings = settings

    async def search(self, query=None, *, queries=None, max_results=None, recency=None):
        return build_envelope(provider=self.provider, query=" | ".join(queries), limits=ResultLimits(),
                              evidence=[Evidence(title="t", url="https://a.example/", source="a", snippet="s")])


@coroutine_test
async def test_a_provider_that_takes_no_filters_is_an_error_naming_the_filter_never_silence():
    from lightsearch.surfaces.toolbox import Toolbox

    async with Toolbox({"WEB_SEARCH_PROVIDER": f"{__name__}.ProviderWithoutFilters", "LOG_LEVEL": "ERROR"}) as box:
        plain = await box.invoke("web_search", {"query": "x"})
        filtered = await box.invoke("web_search", {"query": "x", "excludeDomains": ["a.example"]})
    assert plain["provider"] == "mine"
    assert filtered["error"]["code"] == "invalid_input"
    assert filtered["error"]["details"]["parameter"] == "excludeDomains"
    assert "does not take it" in filtered["error"]["message"]
