from lightsearch.ranking.tokenize import is_hebrew, tokenize


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
