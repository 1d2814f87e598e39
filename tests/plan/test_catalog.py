import copy
import json
from collections import Counter

import pytest

from lightsearch.plan.catalog import DEFAULT_CATALOG, CatalogError, load_catalog, parse_catalog

GOOD = {
    "id": "t", "version": "1",
    "sources": [{
        "id": "example-news", "name": "Example", "language": "en", "kind": "news",
        "origins": ["https://news.example"], "seeds": ["https://news.example/"],
        "feeds": ["https://news.example/rss"], "topics": ["news"],
    }],
}


def test_bundled_catalog_is_valid_and_covers_every_language_and_kind():
    catalog = load_catalog()
    assert catalog.id
    assert catalog.version
    assert len(catalog.sources) >= 24
    counts = Counter((s.language, s.kind) for s in catalog.sources)
    for lang in ("en", "he"):
        for kind in ("reference", "government", "news", "science", "technology"):
            assert counts[(lang, kind)] >= 2, (lang, kind)


def test_every_bundled_source_cites_evidence():
    raw = json.loads(DEFAULT_CATALOG.read_text(encoding="utf-8"))
    for source in raw["sources"]:
        evidence = source.get("evidence", {})
        for field in ("seeds", "feeds", "sitemaps"):
            if source.get(field):
                assert evidence.get(field), (source["id"], field)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("language",), "fr", "language"),
        (("kind",), "sports", "kind"),
        (("id",), "Bad Id!", "id"),
        (("seeds",), [], "seeds"),
        (("seeds",), ["https://elsewhere.example/"], "seeds"),
        (("feeds",), ["ftp://news.example/rss"], "feeds"),
        (("origins",), ["https://news.example/path"], "origins"),
        (("topics",), "news", "topics"),
    ],
)
def test_invalid_source_names_source_and_field(path, value, field):
    data = copy.deepcopy(GOOD)
    data["sources"][0][path[0]] = value
    with pytest.raises(CatalogError) as info:
        parse_catalog(data)
    assert info.value.code == "invalid_catalog"
    assert info.value.details["field"] == field
    assert field in info.value.message


def test_duplicate_ids_are_refused():
    data = copy.deepcopy(GOOD)
    data["sources"].append(copy.deepcopy(data["sources"][0]))
    with pytest.raises(CatalogError, match="duplicate"):
        parse_catalog(data)


def test_override_gets_a_distinct_corpus_id():
    base = parse_catalog(GOOD)
    other = copy.deepcopy(GOOD)
    other["sources"][0]["feeds"] = []
    assert parse_catalog(other).corpus_id != base.corpus_id
    assert parse_catalog(copy.deepcopy(GOOD)).corpus_id == base.corpus_id


def test_unreadable_catalog_file(tmp_path):
    bad = tmp_path / "c.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogError, match="not valid JSON"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match="cannot be read"):
        load_catalog(tmp_path / "missing.json")


def test_origin_of_a_malformed_url_is_no_origin():
    from lightsearch.plan.catalog import origin_of

    for url in ("Sitemap://]", "https://deve: /?", "s://:99999", "h://:x", "http://[x"):
        assert origin_of(url) == ""
    assert origin_of("https://Example.com:443/a") == "https://example.com"
