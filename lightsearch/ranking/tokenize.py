"""One tokenizer for documents and queries, Hebrew and English alike.

BM25 only works when the query and the text agree on what a word is. English words are
stemmed (Snowball, through PyStemmer's C build when present) and stop words dropped;
Hebrew words lose niqqud and cantillation and up to two of the one-letter prefixes
(ו ה ב ל מ ש כ) while the stem stays longer than three letters (what that does for HeQ:
docs/EVALUATION.md), and the plural suffixes ים/ות
while three letters remain, so a singular query finds a plural title.

A Hebrew acronym is written with gershayim before its last letter (רמב"ם, צה״ל), and pages
spell the mark as ״, as an ASCII or curly double quote, as two apostrophes, or leave it out:
the mark is dropped between a word's letters and its last one, so every spelling is one term.
An acronym is made of the initials of the words it stands for (רשב"י: רבי שמעון בר יוחאי), and
pages name a person or a body by either: :func:`title_terms` gives a short Hebrew title (or
slug) the term of its initials too, so a query naming the acronym finds the page titled in
full, in the discovery documents' titles and slugs as in the ranked pages' titles.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import snowballstemmer

from lightsearch.cache.memo import WORD_CHARS, short_memo

_WORD = re.compile(r"\w+", re.UNICODE)
_HEBREW_MARKS = re.compile("[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]")
_HEBREW_LETTER = re.compile("[\u05d0-\u05ea]")
_HEBREW_PREFIXES = frozenset("והבלמשכ")
_FINAL_FORMS = str.maketrans("ךםןףץ", "כמנפצ")
# Gershayim (or what stands for it) between letters and a word's one last letter.
_ACRONYM_MARK = re.compile("(?<=[\u05d0-\u05ea])(?:[\"\u05f4\u201d]|'')(?=[\u05d0-\u05ea](?![\u05d0-\u05ea]))")
_HEBREW_WORD = re.compile("[\u05d0-\u05ea]+")
_PARENTHESIS = re.compile(r"\([^)]*\)")
# Titles of this many Hebrew words get the term of their initials: fewer make two-letter
# terms that common abbreviations (ע"י, "by") share; more are sentences, not names.
ACRONYM_WORDS = (3, 6)

# Lucene's English stop list (33 words), as in the reference oracle.
ENGLISH_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"]
)
# A short list of Hebrew function words that carry no topic.
HEBREW_STOP = frozenset(
    ["של", "את", "על", "עם", "זה", "זו", "זאת", "הוא", "היא", "הם", "הן", "אני", "אתה", "את", "אנחנו", "גם", "כי", "אם", "או", "לא", "כן", "יש", "אין", "מה", "מי", "איך", "למה", "כמו", "רק", "עוד", "כל", "אשר", "היה", "היו", "להיות", "אל", "מן", "בין"]
)

_stemmer = snowballstemmer.stemmer("english")


@short_memo(65536, WORD_CHARS)
def _english(word: str) -> str:
    return _stemmer.stemWord(word)


@short_memo(65536, WORD_CHARS)
def _hebrew(word: str) -> str:
    word = _HEBREW_MARKS.sub("", word)
    # Plural suffixes (ים, ות) first, while three letters of stem remain: שחורים -> שחור;
    # stripping prefixes first would eat the stem's own first letter (שחורים -> חורים).
    if len(word) >= 5 and word[-2:] in ("ים", "ות"):
        word = word[:-2]
    for _ in range(2):
        if len(word) > 4 and word[0] in _HEBREW_PREFIXES:
            word = word[1:]
        else:
            break
    # Final letters depend on position only; folding them keeps stripped forms comparable.
    return word.translate(_FINAL_FORMS)


def is_hebrew(text: str) -> bool:
    """True when the text is written (mostly) in Hebrew script."""
    hebrew = len(_HEBREW_LETTER.findall(text))
    latin = sum(1 for ch in text if "a" <= ch.lower() <= "z")
    return hebrew > 0 and hebrew >= latin


@short_memo(131072, WORD_CHARS)
def _term(word: str) -> str | None:
    """The index term of one lowercased word, None for a stop word (cached: a search
    tokenizes every sentence of every page, and words repeat)."""
    if _HEBREW_LETTER.search(word):
        return None if word in HEBREW_STOP else _hebrew(word)
    if word.isdigit():
        return word
    if word in ENGLISH_STOP or len(word) < 2:
        return None
    return _english(word)


def tokenize(text: str) -> list[str]:
    """Index terms of ``text``: lowercased, stop words dropped, stemmed by script."""
    if not text.isascii():
        text = _ACRONYM_MARK.sub("", _HEBREW_MARKS.sub("", unicodedata.normalize("NFC", text)))
    return [term for term in map(_term, _WORD.findall(text.lower())) if term]


def initials_term(text: str) -> str | None:
    """The index term of the initials of a short Hebrew name (``ACRONYM_WORDS`` Hebrew
    words, a parenthesis left out), as its acronym is tokenized; None for anything else."""
    if text.isascii():
        return None
    text = _ACRONYM_MARK.sub("", _HEBREW_MARKS.sub("", unicodedata.normalize("NFC", _PARENTHESIS.sub(" ", text))))
    words = _HEBREW_WORD.findall(text)
    low, high = ACRONYM_WORDS
    if not low <= len(words) <= high or len(words) < len(_WORD.findall(text)):
        return None  # not a Hebrew name alone (a number, a Latin word, a long sentence)
    return _term("".join(word[0] for word in words))


def title_terms(text: str) -> list[str]:
    """A title's index terms: its words', then its initials' when it is a short Hebrew name."""
    terms = tokenize(text)
    initials = initials_term(text)
    if initials and initials not in terms:
        terms.append(initials)
    return terms


# Words that carry no topic beyond the stop lists: question words, auxiliaries, pronouns,
# quantifiers. A hit whose only words in common with the query are these shares nothing
# the query is about, and is not shown as evidence for it (ranking/rank.py).
_FUNCTION_WORDS = (
    "about above after again against all also am any because been before being below between both can "
    "could did do does doing done down during each either every few from further get gets got had has have "
    "having he her here hers him his how however i its itself just let may me might more most much must my "
    "neither nor now off once one only other our ours out over own same shall she should so some than that "
    "them those though through thus too under until up upon us very we were what whatever when where "
    "whether which while who whom whose why would yet you your "
    "מי איך למה מתי איפה היכן כמה האם אילו איזה איזו אלה אלו הזה הזאת הזו לו לה להם שלו שלה שלהם כך כאשר "
    "אחרי לפני מאוד יותר פחות אבל אולם אך גם כבר רק עוד בו בה בהם ממנו ממנה אותו אותה אותם הייתה יהיה תהיה"
)
FUNCTION_TERMS = frozenset(t for word in _FUNCTION_WORDS.split() for t in tokenize(word))


def content_terms(terms: Iterable[str]) -> set[str]:
    """The query terms that say what it is about (index terms, not function words)."""
    return {t for t in terms if t not in FUNCTION_TERMS}
