"""Text shown on a terminal: escape sequences removed whole, no control character left.

The property: whatever a page or a site supplies (a title, a name, a snippet, a page's
text), what :func:`terminal_text` returns holds no C0 or C1 control character (a newline
only where lines are kept) and no bidi or zero-width format character, so no escape
sequence can reach the terminal, whole or in pieces. Hypothesis drives it with text built
from escape-sequence fragments; hostile titles (a window title, an OSC 8 link) are pinned
as examples.
"""

from __future__ import annotations

import json
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lightsearch.surfaces.terminal import terminal_text

OSC8 = "\x1b]8;;https://evil.example/steal\x1b\\Click here\x1b]8;;\x1b\\"
TITLE = f"Field Notes\x1b]0;pwned window title\x07 \x1b[2J\x1b[31mred\x1b[0m\x07 {OSC8} \x9b6n end"

FRAGMENTS = ["\x1b", "\x1b[", "\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX", "\x1b\\", "\x07", "\x9b", "\x9c", "\x9d",
             "\x90", "\x85", "\x00", "\r", "\n", "\t", "\x7f", "\u202e", "\u200b", "\u2066", "8;;", "0;", "[31m",
             "2J", "https://evil.example/", "]", ";", "m", "Title", "שלום", "e\u0301"]
hostile = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40).map("".join)


def bad_characters(text: str, *, lines: bool) -> list[str]:
    allowed = {"\n"} if lines else set()
    return [ch for ch in text if ch not in allowed and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]


@settings(max_examples=60, derandomize=True, deadline=None)
@given(hostile, st.booleans())
@example(TITLE, False)
@example(OSC8 * 3, True)
@example("\x1b]0;unterminated title and the rest", False)
def test_no_control_character_survives(text, lines):
    shown = terminal_text(text, lines=lines)
    assert bad_characters(shown, lines=lines) == []
    assert "\x1b" not in shown


def test_sequences_go_whole_and_the_words_stay():
    shown = terminal_text(TITLE)
    assert shown == "Field Notes red Click here end"
    assert "evil.example" not in shown  # the hidden target of the OSC 8 link, not left as text
    assert "pwned" not in shown
    assert terminal_text("line one\n\x1b[1mline two\x1b[0m", lines=True) == "line one\nline two"
    assert terminal_text("Ελληνικά · עברית · café") == "Ελληνικά · עברית · café"


def test_hostile_runs_are_read_once():
    """A text of nothing but introducers is linear work, not quadratic (each string command
    stops at the next introducer)."""
    for text in ("\x9d" * 200_000, "\x1b]" * 100_000, "\x1b[" * 100_000):
        assert terminal_text(text, lines=True) == ""


json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), hostile,
                                     st.text(alphabet=st.characters(codec="utf-8"))),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(hostile, inner, max_size=4)),
                           max_leaves=12)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(json_values, st.sampled_from([None, 2]))
@example({"title": TITLE, "bidi": "a\u202eb", "tag": "\U000e0041", "sep": "\u2028"}, 2)
def test_json_for_a_terminal_reads_back_the_same_and_shows_no_control_character(value, indent):
    from lightsearch.surfaces.terminal import terminal_json

    shown = terminal_json(value, indent=indent)
    assert json.loads(shown) == value
    assert bad_characters(shown, lines=True) == []
    shown.encode("utf-8")  # nothing a terminal's encoding refuses
