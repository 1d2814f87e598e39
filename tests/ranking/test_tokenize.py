from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.ranking.tokenize import initials_term, is_hebrew, title_terms, tokenize

# Hebrew letters, the marks that stand for gershayim and geresh, spaces, Latin and digits.
_MIXED = st.text(st.sampled_from([*list("אבגדהוזחטיכלמנסעפצקרשתםןץ"), '"', "״", "”", "'", "׳", " ", "a", "1", "("]),
                 max_size=40)


def test_english_stems_and_drops_stop_words():
    assert tokenize("The running of the Bulls") == ["run", "bull"]
    assert tokenize("photosynthesis") == tokenize("Photosynthesis")


def test_hebrew_niqqud_is_stripped():
    assert tokenize("וּבַבַּיִת") == tokenize("ובבית")


def test_hebrew_prefixes_are_stripped_while_the_stem_stays_longer_than_three():
    assert tokenize("לירושלים") == tokenize("ירושלים")
    assert tokenize("ובבית") == ["בבית"]  # one prefix off: the stem would be three letters
    assert tokenize("כשהממשלה") == ["הממשלה"]  # at most two letters
    assert tokenize("הבית") == ["הבית"]  # the stem would be three letters: kept
    assert tokenize("בית") == ["בית"]


def test_script_detection():
    assert is_hebrew("מה מזג האוויר בתל אביב")
    assert not is_hebrew("weather in Tel Aviv")
    assert is_hebrew("מחיר iPhone בישראל")


def test_hebrew_plural_suffix_goes_before_prefixes():
    assert tokenize("חורים שחורים") == tokenize("חור שחור")
    assert tokenize("המלכודות")[0] == "לכוד"
    assert tokenize("מים") == ["מימ"]  # too short to lose a suffix


def test_every_spelling_of_a_hebrew_acronym_is_one_term():
    """Gershayim, an ASCII or curly double quote, two apostrophes or no mark at all."""
    spellings = ['רשב"י', "רשב״י", "רשב”י", "רשב''י", "רשבי"]
    assert {tuple(tokenize(s)) for s in spellings} == {("רשבי",)}
    assert tokenize('לרשב"י') == tokenize("רשבי")  # a prefix before an acronym
    assert tokenize('רמב"ם') == tokenize("רמבם")  # its last letter in final form


def test_a_quoted_word_is_not_an_acronym():
    """The mark joins letters only when one letter follows it, as in an acronym."""
    assert tokenize('ה"כרם" ביבנה') == ["ה", "כרמ", "יבנה"]
    assert tokenize('אמר "שלום" לכולם') == tokenize("אמר שלום לכולם")


def test_a_short_hebrew_name_carries_the_term_of_its_acronym():
    assert title_terms("רבי שמעון בר יוחאי")[-1] == tokenize('רשב"י')[0]
    assert initials_term("רבי משה בן מימון (הרמב\"ם)") == tokenize('רמב"ם')[0]
    assert initials_term("רבן גמליאל") is None  # two letters: common abbreviations share them
    assert initials_term("Python 3 שפת תכנות") is None  # not a Hebrew name alone
    assert initials_term("boundary layers of a flat plate") is None
    assert initials_term("מה קרה לחללית שיצאה לירח בשנה שעברה") is None  # a sentence


@settings(max_examples=150, deadline=None)
@given(_MIXED)
def test_gershayim_spellings_tokenize_alike_and_titles_never_raise(text):
    assert tokenize(text.replace("\u05f4", '"')) == tokenize(text.replace('"', "\u05f4"))
    terms = title_terms(text)
    assert all(isinstance(t, str) and t for t in terms)
    assert terms[: len(tokenize(text))] == tokenize(text)
