"""The one settings table: defaults, validation, unknown keys and the generated docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightsearch import settings as module
from lightsearch.config import make_settings
from lightsearch.errors import LightSearchError
from lightsearch.providers.light import LightSearch
from lightsearch.schema import BY_KEY, PREFIXES, SCHEMA, markdown, validate
from tests.conftest import coroutine_test

ROOT = Path(__file__).resolve().parents[1]


def test_settings_module_takes_every_default_from_the_schema():
    ours = {k for k in dir(module) if k.startswith(PREFIXES)}
    assert ours == set(BY_KEY)
    for spec in SCHEMA:
        assert getattr(module, spec.key) == spec.default
        if spec.low is not None and spec.default is not None:
            values = spec.default if spec.type == "list" else [spec.default]  # a list's items are bounded
            assert all(spec.low <= v <= spec.high for v in values), spec.key


def test_generated_docs_are_current():
    assert (ROOT / "docs" / "SETTINGS.md").read_text("utf-8") == markdown()


def test_defaults_validate():
    validate(make_settings(), PREFIXES)


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("LIGHT_MAX_HOPS", "abc", "must be an integer"),
    ("LIGHT_MAX_HOPS", 0, "between 1 and 200"),
    ("LIGHT_MAX_HOPS", 2.5, "must be an integer"),
    ("LIGHT_SOFT_DEADLINE_SECS", True, "must be a number"),
    ("WEB_FETCH_ENABLED", "maybe", "true or false"),
    ("RESULT_MAX_BYTES", 10, "between"),
    ("BRAVE_COUNTRY", 3, "must be a string"),
])
def test_bad_values_name_the_key(key, value, fragment):
    with pytest.raises(LightSearchError) as err:
        validate(make_settings({key: value}), PREFIXES)
    assert err.value.code == "invalid_settings"
    assert err.value.details["key"] == key
    assert fragment in err.value.message


def test_unknown_key_suggests_the_closest():
    with pytest.raises(LightSearchError) as err:
        validate(make_settings({"LIGHT_MAX_HOPPS": 3}), PREFIXES)
    assert err.value.details == {"key": "LIGHT_MAX_HOPPS", "didYouMean": "LIGHT_MAX_HOPS"}
    assert "did you mean LIGHT_MAX_HOPS?" in err.value.message
    with pytest.raises(LightSearchError) as err:
        validate(make_settings({"BRAVE_ZZZ_QQQ": 1}), PREFIXES)
    assert "didYouMean" not in err.value.details


@coroutine_test
async def test_a_typo_fails_the_first_search_before_any_request(offline_settings, origins):
    engine = LightSearch.from_settings({**offline_settings, "LIGHT_MAX_HOPPS": 3})
    with pytest.raises(LightSearchError) as err:
        await engine.search("photosynthesis")
    assert err.value.code == "invalid_settings"
    assert err.value.details["key"] == "LIGHT_MAX_HOPPS"
    assert origins.log == []


def test_a_discovery_cache_of_its_own_needs_both_bounds():
    from lightsearch.config import validate_light_settings

    validate_light_settings(make_settings({"LIGHT_DISCOVERY_CACHE_MAX_RECORDS": 256,
                                           "LIGHT_DISCOVERY_CACHE_MAX_BYTES": 8 << 20}))
    with pytest.raises(LightSearchError) as err:
        validate_light_settings(make_settings({"LIGHT_DISCOVERY_CACHE_MAX_RECORDS": 256}))
    assert err.value.details["key"] == "LIGHT_DISCOVERY_CACHE_MAX_BYTES"
