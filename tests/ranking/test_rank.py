import pytest

from lightsearch.documents import Document
from lightsearch.ranking.bm25 import bm25_scores
from lightsearch.ranking.rank import rank_documents
from lightsearch.ranking.snippets import best_passage
from lightsearch.ranking.tokenize import tokenize


def doc(url, title, text):
    return Document(url=url, source_id="s", title=title, text=text, retrieved_at="2026-12-03T00:00:00Z")


def test_two_document_corpus_still_scores():
    # rank-bm25's Okapi idf is zero here; the Lucene idf is not.
    scores = bm25_scores([["solar", "panel"], ["wind", "turbin"]], ["solar"])
    assert scores[0] > 0
    assert scores[1] == 0


def test_empty_inputs():
    assert bm25_scores([], ["x"]) == []
    assert bm25_scores([[], []], ["x"]) == [0.0, 0.0]


def test_nonsense_query_gives_no_hits():
    docs = [doc("https://a/1", "Solar power", "Solar panels turn light into electricity.")]
    assert rank_documents(docs, ["xqzzv blorft"]) == []


def test_best_document_first_and_fused_across_queries():
    docs = [
        doc("https://a/1", "Solar power", "Solar panels turn sunlight into electricity. " * 3),
        doc("https://a/2", "Wind power", "Wind turbines turn moving air into electricity. " * 3),
        doc("https://a/3", "Cooking", "A recipe for bread."),
    ]
    ranked = rank_documents(docs, ["solar panels"])
    assert [r.document.url for r in ranked] == ["https://a/1"]
    fused = rank_documents(docs, ["solar panels", "wind turbines"])
    assert {r.document.url for r in fused} == {"https://a/1", "https://a/2"}


def test_duplicates_collapse():
    d = doc("https://a/1", "Solar", "solar energy")
    assert len(rank_documents([d, d], ["solar"])) == 1


def test_snippet_is_the_passage_with_the_query_terms():
    text = ("The museum opened in 1901. It holds paintings. "
            "Its most famous object is a bronze astrolabe from Toledo. "
            "The cafe serves lunch.")
    snippet = best_passage(text, set(tokenize("bronze astrolabe")), 80)
    assert "astrolabe" in snippet
    assert len(snippet) <= 82


def test_snippet_cut_respects_limit_in_hebrew():
    text = "פסקה ראשונה על נושא אחר לגמרי. " * 5 + "הפוטוסינתזה מתרחשת בכלורופלסטים של התא. " * 5
    snippet = best_passage(text, set(tokenize("פוטוסינתזה")), 60)
    assert "פוטוסינתזה" in snippet
    assert len(snippet) <= 62


def test_bm25_scores_are_the_ones_the_figures_were_measured_with():
    """The scores the evaluation figures were measured with: rank-bm25's scoring with the
    Lucene idf (tests/ranking/test_bm25_reference.py holds the two together)."""
    scores = bm25_scores([["a", "b"], ["b", "c"]], ["b", "c"])
    assert scores == pytest.approx([0.1823215567939546, 0.8754687373538999], rel=1e-12)
    assert bm25_scores([["a"], [], ["a", "a", "b"]], ["a", "a"]) == pytest.approx(
        [2 * s for s in bm25_scores([["a"], [], ["a", "a", "b"]], ["a"])])


# Nine pages on the crystalline lens of vertebrates and one on human growth: a search that
# did its job and read the pages of its topic. What the sources publish says how common
# each word is in the catalog: the lens is a rare subject there, humans a common one.
_LENS = [
    ("Crystallins of the vertebrate lens", "The crystalline lens of vertebrates is built of crystallins. "
     "Lens fibre cells lose their nuclei as the lens grows."),
    ("Lens transparency in fish and birds", "Transparency of the crystalline lens differs among vertebrates: "
     "fish lenses are spherical, bird lenses flatter."),
    ("Ageing of the human lens", "The human crystalline lens hardens with age; other vertebrates "
     "keep a soft lens for longer."),
    ("Lens proteins across vertebrates", "Crystallin genes of the lens were compared in twelve vertebrates."),
    ("Development of the vertebrate lens placode", "The lens placode of vertebrates forms the crystalline lens."),
    ("Cataract in mammals", "Opacity of the crystalline lens of vertebrates, including humans, is a cataract."),
    ("Accommodation by the lens", "Vertebrates focus by changing the shape of the crystalline lens."),
    ("Ultraviolet filters in the lens", "The crystalline lens of many vertebrates absorbs ultraviolet light."),
    ("Lens water content", "Water makes up two thirds of the vertebrate crystalline lens."),
]
_HUMAN = ("Growth hormone in humans", "Humans grow fastest in infancy. Human growth hormone "
          "peaks in adolescence, and human height is set by many genes in humans.")


def test_a_search_whose_pages_are_all_on_topic_still_weighs_its_topic_words():
    """Counted over the ten pages alone, "lens", "crystalline" and "vertebrates" are in nine
    of ten and weigh nothing: the page matching only "humans" ranked first and the lens
    pages fell under a quarter of its score and were withheld."""
    from lightsearch.ranking.statistics import Background

    lens = [doc(f"https://a/lens/{i}", t, x) for i, (t, x) in enumerate(_LENS)]
    pages = [*lens, doc("https://a/growth", *_HUMAN)]
    described = {"crystallin": 12.0, "lens": 30.0, "vertebr": 9.0, "includ": 4.0, "human": 240.0}
    ranked = rank_documents(pages, ["the crystalline lens in vertebrates, including humans"],
                            background=Background(described, 3000.0))
    urls = [r.document.url for r in ranked]
    assert urls[0].startswith("https://a/lens/")
    assert {d.url for d in lens} <= set(urls)  # no lens page withheld
    assert ranked.withheld["far_below"] <= 1  # the growth page, at most
    if "https://a/growth" in urls:
        assert urls.index("https://a/growth") == len(urls) - 1
