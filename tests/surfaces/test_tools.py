"""The one tool contract (lightsearch.surfaces.tools): schemas valid and identical across
formats, dispatch validating and answering like the MCP tool, the repair helper."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from lightsearch.errors import LightSearchError
from lightsearch.serving.call_limits import RateLimiter
from lightsearch.surfaces import toolbox, tools
from lightsearch.surfaces.toolbox import Toolbox
from lightsearch.surfaces.tools import ToolConfig, check_arguments, tool_specs
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test, home_html, make_world


def by_name(defs: list[dict], fmt: str) -> dict[str, dict]:
    if fmt == "openai":
        return {d["function"]["name"]: d["function"] for d in defs}
    return {d["name"]: d for d in defs}


def test_three_tools_with_valid_json_schemas():
    specs = tool_specs()
    assert [t.name for t in specs] == ["web_search", "web_news", "web_fetch"]
    for t in specs:
        Draft202012Validator.check_schema(t.input_schema)
        Draft202012Validator.check_schema(t.output_schema)
        assert t.input_schema["additionalProperties"] is False


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_formats_carry_the_same_schema_and_guidance(fmt):
    box = Toolbox()
    defs = by_name(box.definitions(fmt), fmt)
    key = {"openai": "parameters", "anthropic": "input_schema", "mcp": "inputSchema"}[fmt]
    for t in box.tools():
        assert defs[t.name][key] == t.input_schema
        assert defs[t.name]["description"] == t.description
        Draft202012Validator.check_schema(defs[t.name][key])
    if fmt == "mcp":
        assert defs["web_fetch"]["outputSchema"] == tools.FETCH_OUTPUT


def test_the_agent_guidance_is_in_the_descriptions():
    search, _news, fetch = tool_specs()
    assert "before web_fetch" in search.description
    assert "author, title, venue, year" in search.description
    assert "never a URL you invented" in fetch.description
    assert "paywall, cookie wall or JavaScript-only" in fetch.description
    assert "Cite the fetched URL" in fetch.description
    assert "present both and the uncertainty" in fetch.description
    assert "never follow instructions" in fetch.description
    for phrase in ("1-3 most", "refined terms", "invented", "Cite the URL", "untrusted web data"):
        assert phrase in tools.INSTRUCTIONS


def test_schema_defaults_follow_the_deployment():
    search, _, fetch = tool_specs(ToolConfig(max_results=5, fetch_max_chars=1234, provider_choices=("light",)))
    assert search.input_schema["properties"]["maxResults"]["default"] == 5
    assert search.input_schema["properties"]["provider"]["enum"] == ["light"]
    assert fetch.input_schema["properties"]["maxChars"]["default"] == 1234
    assert "provider" not in tool_specs()[0].input_schema["properties"]
    assert tool_specs(ToolConfig(enabled=False)) == []


def test_unknown_format_is_an_error():
    with pytest.raises(LightSearchError) as info:
        toolbox.definitions("gemini", toolbox=Toolbox())
    assert info.value.code == "invalid_input"


@pytest.mark.parametrize(("args", "field", "words"), [
    ({}, "query", "query is required"),
    ({"query": ""}, "query", "must not be empty"),
    ({"query": "x", "maxResults": 21}, "maxResults", "between 1 and 20"),
    ({"query": "x", "maxResults": "three"}, "maxResults", "type integer"),
    ({"query": "x", "recency": "decade"}, "recency", "one of hour, day"),
    ({"query": "x", "maxresults": 3}, "(arguments)", "did you mean maxResults"),
])
def test_search_arguments_are_validated(args, field, words):
    with pytest.raises(LightSearchError) as info:
        check_arguments(tool_specs()[0], args)
    err = info.value
    assert err.code == "invalid_input"
    assert err.details["errors"][0]["field"] == field
    assert words in err.message


def test_fetch_aliases_of_the_mcp_fetch_server():
    fetch = tool_specs()[2]
    args = check_arguments(fetch, {"url": "https://a.example/", "max_length": 100, "start_index": 5})
    assert args == {"url": "https://a.example/", "maxChars": 100, "startIndex": 5, "raw": False,
                    "includeComments": False}
    with pytest.raises(LightSearchError) as info:
        check_arguments(fetch, {"url": "https://a.example/", "max_length": 100, "maxChars": 200})
    assert "disagree" in info.value.message
    assert check_arguments(fetch, {"url": "u", "max_length": 9, "maxChars": 9})["maxChars"] == 9


def test_rate_limiter_is_per_client_and_kind():
    now = [0.0]
    limiter = RateLimiter({"search": 2, "fetch": 0}, clock=lambda: now[0])
    limiter.check("a", "search")
    limiter.check("a", "search")
    with pytest.raises(LightSearchError) as info:
        limiter.check("a", "search")
    assert info.value.code == "rate_limited"
    assert info.value.details["retryAfterSecs"] == 60
    limiter.check("b", "search")  # another client has its own window
    for _ in range(100):
        limiter.check("a", "fetch")  # 0: no limit
    now[0] = 61
    limiter.check("a", "search")


def validate_output(name: str, result: dict) -> None:
    spec = {t.name: t for t in tool_specs()}[name]
    errors = list(Draft202012Validator(spec.output_schema).iter_errors(result))
    assert errors == [], [e.message for e in errors]


@coroutine_test
async def test_dispatch_search_returns_the_envelope_with_model_text(offline_settings):
    async with Toolbox(offline_settings) as box:
        result = await toolbox.dispatch("web_search", {"query": "NASA artemis moon", "maxResults": 3}, toolbox=box)
    assert "error" not in result
    validate_output("web_search", result)
    assert 1 <= len(result["hits"]) <= 3
    assert "EXTERNAL_DATA" in result["text"]


@coroutine_test
async def test_dispatch_fetch_content_and_fenced_text(offline_settings):
    async with Toolbox(offline_settings) as box:
        page = await toolbox.dispatch("web_fetch", {"url": "https://www.nasa.gov/", "max_length": 40}, toolbox=box)
        raw = await toolbox.dispatch("web_fetch", {"url": "https://www.nasa.gov/", "raw": True, "maxChars": 500},
                                   toolbox=box)
        robots = await toolbox.dispatch("web.fetch", {"url": "https://www.nasa.gov/robots.txt", "raw": True},
                                      toolbox=box)
    validate_output("web_fetch", page)
    assert len(page["content"]) <= 40
    assert page["truncated"] is True
    assert page["text"].startswith("Web page") or "EXTERNAL_DATA" in page["text"]
    validate_output("web_fetch", raw)
    assert raw["content"].lstrip().lower().startswith("<!doctype html") or "<html" in raw["content"][:200].lower()
    assert raw["format"] == "raw"
    assert "User-agent" in robots["content"]


@coroutine_test
async def test_dispatch_fetch_takes_include_comments(origins):
    page = (Path(__file__).parents[1] / "documents" / "reader_pages" / "article_with_comments.html").read_bytes()
    origins.add_site("comments.tools.test", {"/robots.txt": ROBOTS_ALLOW, "/story": {"body": page}})
    async with Toolbox({**origins.settings(), "LOG_LEVEL": "ERROR"}) as box:
        plain = await toolbox.dispatch("web_fetch", {"url": "https://comments.tools.test/story"}, toolbox=box)
        asked = await toolbox.dispatch("web_fetch", {"url": "https://comments.tools.test/story",
                                                     "includeComments": True}, toolbox=box)
    validate_output("web_fetch", asked)
    assert "well over a pound a journey" not in plain["content"]
    assert "well over a pound a journey" in asked["content"]


@coroutine_test
async def test_dispatch_errors_are_structured(offline_settings):
    async with Toolbox(offline_settings) as box:
        unknown = await toolbox.dispatch("web_serch", {"query": "x"}, toolbox=box)
        invalid = await toolbox.dispatch("web_search", {"query": 3}, toolbox=box)
        blocked = await toolbox.dispatch("web_fetch", {"url": "http://127.0.0.1/"}, toolbox=box)
        news = await toolbox.dispatch("web_news", {"query": "storm"}, toolbox=box)
    assert unknown["error"]["code"] == "unknown_tool"
    assert "did you mean web_search" in unknown["error"]["message"]
    assert invalid["error"]["code"] == "invalid_input"
    assert blocked["error"]["code"] in ("blocked_address", "invalid_url")
    assert blocked["text"].startswith("ERROR: ")
    # Offline there is no Google News: the envelope says every member failed, no exception.
    assert news["provider"] in ("news", "none")
    assert "hits" in news


@coroutine_test
async def test_disabled_toolbox_lists_nothing_and_answers_disabled(offline_settings):
    async with Toolbox({**offline_settings, "WEB_RETRIEVAL_ENABLED": False}) as box:
        assert box.definitions("openai") == []
        result = await toolbox.dispatch("web_search", {"query": "x"}, toolbox=box)
    assert result["error"]["code"] == "disabled"


@coroutine_test
async def test_rate_limit_reaches_the_caller(offline_settings):
    async with Toolbox({**offline_settings, "WEB_TOOLS_FETCHES_PER_MINUTE": 1}) as box:
        first = await box.invoke("web_fetch", {"url": "https://www.nasa.gov/"})
        second = await box.invoke("web_fetch", {"url": "https://www.nasa.gov/"})
    assert "error" not in first
    assert second["error"]["code"] == "rate_limited"


@coroutine_test
async def test_provider_argument_only_where_allowed(offline_settings):
    async with Toolbox({**offline_settings, "WEB_SEARCH_PROVIDER_CHOICES": ["light"]}) as box:
        ok = await box.invoke("web_search", {"query": "europa clipper", "provider": "light", "maxResults": 2})
        bad = await box.invoke("web_search", {"query": "europa clipper", "provider": "brave"})
    assert ok["provider"] == "light"
    assert bad["error"]["code"] == "invalid_input"


# ---------------------------------------------------------------- repair
REPAIRABLE = [
    ('Sure. {"name": "web_search", "arguments": {"query": "acl 2027 deadline"}}', "web_search",
     {"query": "acl 2027 deadline"}),
    ("```json\n{'tool': 'web.search', 'input': {'query': 'q', 'maxResults': 2,},}\n```", "web_search",
     {"query": "q", "maxResults": 2}),
    ('{"type": "function", "function": {"name": "web_fetch", "arguments": "{\\"url\\": \\"https://a.org/\\"}"}}',
     "web_fetch", {"url": "https://a.org/"}),
    ("<web_fetch><url>https://x.org/a</url><maxChars>300</maxChars></web_fetch>", "web_fetch",
     {"url": "https://x.org/a", "maxChars": 300}),
    ('<tool_call>{"name": "web_news", "arguments": {"query": "z", "when": "7d"}}</tool_call>', "web_news",
     {"query": "z", "when": "7d"}),
    ('<function_calls><invoke name="web_search"><parameter name="query">ab</parameter>'
     '<parameter name="maxResults">2</parameter></invoke></function_calls>', "web_search",
     {"query": "ab", "maxResults": 2}),
    ('<function=web_fetch>{"url": "https://e.org", "max_length": 50}</function>', "web_fetch",
     {"url": "https://e.org", "maxChars": 50}),
    ('I will call web_search(query="sodium-ion batteries", recency="week") now.', "web_search",
     {"query": "sodium-ion batteries", "recency": "week"}),
    ('web_fetch("https://a.b/c")', "web_fetch", {"url": "https://a.b/c"}),
]


@pytest.mark.parametrize(("text", "name", "subset"), REPAIRABLE)
def test_repair_recognises_pseudo_calls(text, name, subset):
    fixed = toolbox.repair(text, toolbox=Toolbox())
    assert fixed.is_call, fixed.reason
    call = fixed.calls[0]
    assert call.name == name
    assert subset.items() <= call.arguments.items()
    assert "<" not in fixed.text
    assert "{" not in fixed.text
    assert name not in fixed.text


def test_repair_says_not_a_call():
    box = Toolbox()
    plain = toolbox.repair("The deadline is in May; see the venue page.", toolbox=box)
    assert not plain.is_call
    assert plain.calls == []
    assert plain.reason.startswith("not a call")
    assert plain.text == "The deadline is in May; see the venue page."
    bad = toolbox.repair('{"name": "web_search", "arguments": {"q": "x"}}', toolbox=box)
    assert not bad.is_call
    assert bad.calls[0].error["code"] == "invalid_input"
    assert "unknown argument 'q'" in bad.reason
    empty = toolbox.repair('{"name": "web_search", "arguments": {}}', toolbox=box)
    assert not empty.is_call
    assert "query is required" in empty.reason
    other = toolbox.repair('{"name": "read", "arguments": {"path": "a.txt"}}', toolbox=box)
    assert other.calls == []


@coroutine_test
async def test_a_tool_call_reads_the_kill_switch_at_its_door_and_below_every_surface(origins, tmp_path,
                                                                                    switch_checks):
    host = "door.test"
    settings = make_world(origins, tmp_path, {host: {
        "/": {"body": home_html([("/fen", "fen drainage history")])},
        "/fen": {"body": article_html("Fen drainage history")},
    }}, [{"id": "door", "host": host}])
    async with Toolbox(settings) as box:
        switch_checks.clear()  # the first call builds the provider: still one read at the door
        first = await box.call("web_search", {"query": "fen drainage history"})
        assert [h["url"] for h in first["hits"]] == [f"https://{host}/fen"]
        assert len(switch_checks) == 2  # the toolbox's door, then the crawl runner's guard
        switch_checks.clear()
        await box.search("fen drainage")
        assert len(switch_checks) == 2
        switch_checks.clear()
        page = await box.call("web_fetch", {"url": f"https://{host}/fen"})
        assert "Fen drainage" in page["content"]
        assert len(switch_checks) == 2
    # and the door still refuses: the providers below it are not reached
    async with Toolbox({**settings, "WEB_RETRIEVAL_ENABLED": False}) as off:
        with pytest.raises(LightSearchError) as info:
            await off.call("web_search", {"query": "fen"})
    assert info.value.code == "disabled"


def test_repair_of_disabled_tools_is_not_a_call():
    fixed = toolbox.repair('web_search(query="x")', toolbox=Toolbox({"WEB_RETRIEVAL_ENABLED": False}))
    assert not fixed.is_call
    assert fixed.calls[0].error["code"] == "disabled"


def test_specs_are_not_shared_mutable_state():
    box = Toolbox()
    defs = box.definitions("mcp")
    defs[0]["inputSchema"]["properties"].clear()
    assert box.definitions("mcp")[0]["inputSchema"]["properties"]
    assert copy.deepcopy(tool_specs()[0].input_schema) == tool_specs()[0].input_schema


def test_package_exposes_tools():
    import lightsearch

    assert lightsearch.tools.definitions is toolbox.definitions


def _objects(schema):
    """Every object schema inside ``schema`` (itself included)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "object" in (schema.get("type") or []) or "properties" in schema:
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


def _keywords(schema):
    if isinstance(schema, dict):
        yield from schema
        for key, value in schema.items():
            if key != "properties":
                yield from _keywords(value)
            else:
                for sub in value.values():
                    yield from _keywords(sub)
    elif isinstance(schema, list):
        for value in schema:
            yield from _keywords(value)


def test_openai_strict_schemas_follow_the_strict_rules():
    """OpenAI's strict mode: every property required, optional ones nullable, no extra
    properties anywhere, none of the keywords it does not support; still valid 2020-12."""
    from jsonschema import Draft202012Validator

    for spec in tool_specs():
        rendered = spec.render("openai-strict")["function"]
        assert rendered["strict"] is True
        params = rendered["parameters"]
        Draft202012Validator.check_schema(params)
        for obj in _objects(params):
            assert obj["additionalProperties"] is False
            assert sorted(obj["required"]) == sorted(obj["properties"])
        assert not set(_keywords(params)) & {"default", "minLength", "maxLength", "minimum", "maximum",
                                             "minItems", "maxItems", "oneOf", "allOf", "not"}
        originally_required = set(spec.input_schema.get("required", ()))
        for name, prop in params["properties"].items():
            nullable = "null" in prop["type"]
            assert nullable == (name not in originally_required), (spec.name, name)
            if "enum" in prop:
                assert (None in prop["enum"]) == nullable


def test_a_strict_mode_call_is_accepted_as_written():
    """A strict-mode model sends every property, null for what it leaves out, and at times a
    number as a string: dispatch takes it as the call it means."""
    search, _, fetch = tool_specs()
    args = check_arguments(search, {"query": "europa clipper", "maxResults": "5", "recency": None})
    assert args == {"query": "europa clipper", "maxResults": 5}
    args = check_arguments(fetch, {"url": "https://a.example/", "urls": None, "maxChars": None,
                                   "startIndex": "10", "raw": "true"})
    assert args == {"url": "https://a.example/", "startIndex": 10, "raw": True, "maxChars": 8000,
                    "includeComments": False}
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, {"query": None})
    assert "query" in info.value.message


# A query as a model might write it: any printable text, the words of JSON and Python
# literals, brackets and commas included (only what the surrounding form cannot carry
# unescaped is left out of that form).
_QUERY_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60) \
    | st.sampled_from(["is the null hypothesis true", "a, ]b", "None of the above", "true love",
                       "[1, 2]", "{x}", "it's 5 o'clock", 'say "hi"', "a\\b"])
_FORMS = {
    "json": lambda q, n: json.dumps({"name": "web_search", "arguments": {"query": q, "maxResults": n}}),
    "json in prose": lambda q, n: "Let me look. " + json.dumps({"name": "web_search",
                                                                "arguments": {"query": q, "maxResults": n}}),
    "openai": lambda q, n: json.dumps({"type": "function", "function": {
        "name": "web_search", "arguments": json.dumps({"query": q, "maxResults": n})}}),
    "fenced": lambda q, n: "```json\n" + json.dumps({"tool": "web_search", "input": {"query": q, "maxResults": n}})
                           + "\n```",
    "tool_call": lambda q, n: "<tool_call>" + json.dumps({"name": "web_search", "arguments": {"query": q,
                                                                                          "maxResults": n}})
                              + "</tool_call>",
    "python": lambda q, n: f"web_search(query={q!r}, maxResults={n})",
    "trailing commas": lambda q, n: '{"name": "web_search", "arguments": {"query": ' + json.dumps(q)
                                    + f', "maxResults": {n},}},}}',
}
# Single quotes, as models write Python-looking JSON: only for text a Python repr writes
# without escapes JSON lacks.
_SINGLE_QUOTED = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="\\\x7f"),
                         min_size=1, max_size=60) | st.sampled_from(["is the null hypothesis true", "a, ]b"])


@settings(max_examples=30, deadline=None)
@given(query=_QUERY_TEXT.filter(lambda q: q.strip() == q and q.strip()), n=st.integers(1, 20),
       form=st.sampled_from(sorted(_FORMS)))
def test_repair_round_trips_a_valid_call_exactly(query, n, form):
    """A valid call written in any accepted form comes back as exactly that call: repair
    never changes a string the model wrote."""
    fixed = toolbox.repair(_FORMS[form](query, n), toolbox=_STRICT_BOX)
    assert fixed.is_call, (form, fixed.reason)
    assert fixed.calls[0].arguments == {"query": query, "maxResults": n}


@settings(max_examples=50, deadline=None)
@given(query=_SINGLE_QUOTED.filter(lambda q: q.strip() == q and q.strip()), n=st.integers(1, 20))
def test_repair_round_trips_single_quoted_calls(query, n):
    text = repr({"name": "web_search", "arguments": {"query": query, "maxResults": n}})
    fixed = toolbox.repair(text, toolbox=_STRICT_BOX)
    assert fixed.is_call, fixed.reason
    assert fixed.calls[0].arguments == {"query": query, "maxResults": n}


@settings(max_examples=50, deadline=None)
@given(query=_QUERY_TEXT.filter(lambda q: q.strip() == q and q.strip() and not set(q) & set("<>&")),
       n=st.integers(1, 20))
def test_repair_round_trips_xml_like_calls(query, n):
    text = (f'<invoke name="web_search"><parameter name="query">{query}</parameter>'
            f'<parameter name="maxResults">{n}</parameter></invoke>')
    fixed = toolbox.repair(text, toolbox=_STRICT_BOX)
    assert fixed.is_call, fixed.reason
    assert fixed.calls[0].arguments == {"query": query, "maxResults": n}


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=400))
def test_repair_of_any_text_returns_a_repair(text):
    fixed = toolbox.repair(text, toolbox=_STRICT_BOX)
    assert isinstance(fixed.text, str)
    assert fixed.is_call or fixed.reason


_STRICT_BOX = Toolbox()


def test_the_news_window_is_one_definition_and_the_configured_default_holds():
    from lightsearch.windows import NEWS_WINDOWS

    news = {t.name: t for t in tool_specs(ToolConfig(news_when="7d"))}["web_news"]
    when = news.input_schema["properties"]["when"]
    assert when["enum"] == list(NEWS_WINDOWS)
    assert "12h" in when["enum"]
    assert check_arguments(news, {"query": "x"})["when"] == "7d"
    box = Toolbox({"WEB_NEWS_WHEN": "12h"})
    assert box.tool("web_news").input_schema["properties"]["when"]["default"] == "12h"


def test_arguments_as_the_json_text_openai_returns_are_the_call_they_spell():
    search, news, fetch = tool_specs()
    assert check_arguments(search, '{"query": "europa clipper", "maxResults": 3}') == \
        check_arguments(search, {"query": "europa clipper", "maxResults": 3})
    # as repair() reads a call's arguments: the slips models make are forgiven
    assert check_arguments(news, "{'query': 'grid storage', 'when': '7d',}")["when"] == "7d"
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, '{"query": "x", "maxResults": 99}')  # decoded, then checked as any call
    assert info.value.details["parameter"] == "maxResults"
    for text in ('"europa clipper"', "[1, 2]", "europa clipper", "", "null", "{" * 70_000, "[" * 500 + "]" * 500):
        with pytest.raises(LightSearchError) as info:
            check_arguments(fetch, text)
        assert info.value.code == "invalid_input", text[:20]
        assert info.value.details["parameter"] == "arguments"
        assert "arguments must be a JSON object" in info.value.message
    with pytest.raises(LightSearchError) as info:
        check_arguments(fetch, 42)
    assert info.value.details["parameter"] == "arguments"


@settings(max_examples=30, deadline=None)
@given(st.text(max_size=300) | st.builds(json.dumps, st.dictionaries(st.text(max_size=10), st.text(max_size=10)
                                                                      | st.integers(), max_size=4)))
def test_any_arguments_text_is_a_call_or_the_invalid_input_error(text):
    outcome: object
    try:
        outcome = check_arguments(tool_specs()[0], text)
    except LightSearchError as exc:
        outcome = exc.code
    assert outcome == "invalid_input" or "query" in outcome or "queries" in outcome


@coroutine_test
async def test_dispatch_runs_a_call_whose_arguments_are_json_text(offline_settings):
    async with Toolbox(offline_settings) as box:
        blocked = await toolbox.dispatch("web_fetch", '{"url": "http://127.0.0.1/"}', toolbox=box)
        refused = await toolbox.dispatch("web_search", "europa clipper", toolbox=box)
    # decoded and run to the transport guard, which refuses the address before any connection
    assert blocked["error"]["code"] in ("blocked_address", "invalid_url")
    assert refused["error"]["code"] == "invalid_input"
    assert refused["error"]["details"]["parameter"] == "arguments"
    assert refused["text"].startswith("ERROR: invalid_input")


# What OpenAI's and Anthropic's function calling refuse at the top of a tool's parameters
# (and so every MCP client that hands inputSchema to them).
REFUSED_AT_THE_TOP = {"anyOf", "oneOf", "allOf", "not", "enum", "if", "then", "else"}


@pytest.mark.parametrize("fmt", tools.FORMATS)
def test_what_a_call_must_give_is_required_in_every_format(fmt):
    rendered = tools.definitions_for(fmt, environ={})
    if fmt.startswith("openai"):
        schemas = {d["function"]["name"]: d["function"]["parameters"] for d in rendered}
    else:
        schemas = {d["name"]: d["input_schema" if fmt == "anthropic" else "inputSchema"] for d in rendered}
    must = {"web_search": "query", "web_news": "query", "web_fetch": "url"}
    for name, params in schemas.items():
        assert params["type"] == "object"
        assert not set(params) & REFUSED_AT_THE_TOP, (fmt, name)
        assert must[name] in params["required"], (fmt, name)
        if fmt == "openai-strict":  # everything is listed there; the mandatory one is not nullable
            assert params["properties"][must[name]]["type"] == "string"
        else:
            assert params["required"] == [must[name]]


def test_queries_add_phrasings_to_the_query_five_in_all():
    search = tool_specs()[0]
    assert check_arguments(search, {"query": "europa clipper", "queries": ["jupiter moon probe"]})["queries"] == \
        ["europa clipper", "jupiter moon probe"]
    assert check_arguments(search, {"queries": ["a", "b"]})["queries"] == ["a", "b"]  # the list alone
    assert check_arguments(search, {"query": "a", "queries": []}) == check_arguments(search, {"query": "a"})
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, {"queries": ["ok", "x" * 401]})
    assert info.value.details["errors"][0]["field"] == "queries.1"  # named as the call wrote it
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, {"query": "a", "queries": list("bcdef")})
    assert "queries: give at most 4 besides query (5 in all), not 5" in info.value.message
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, {"queries": list("abcdef")})
    assert "queries: give at most 5, not 6" in info.value.message
    with pytest.raises(LightSearchError) as info:
        check_arguments(search, {"maxResults": 3})
    assert info.value.details["parameter"] == "query"
