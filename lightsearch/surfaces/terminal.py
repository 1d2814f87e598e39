"""Text that is safe to print on a terminal: the one cleaning every command's output for
people goes through (:mod:`lightsearch.surfaces.present` prints nothing else), and what
the user catalog stores.

A web page's title can carry terminal escape sequences: ``ESC ] 0 ; ... BEL`` retitles the
window, ``ESC [ 2 J`` clears the screen, an OSC 8 sequence makes a link whose target is
not the text shown, and some terminals answer queries by typing into the shell. Removing
the ESC alone would leave the sequence's payload (a hidden URL) on screen as text, so
every ECMA-48 sequence is removed whole: control sequences (CSI: ``ESC [`` or ``0x9b``,
parameters, a final byte), string commands (OSC, DCS, SOS, PM, APC: up to their
terminator, BEL or ST) and two-character escapes. What is left goes through the model
text's own cleaning (:func:`~lightsearch.evidence.render.clean_untrusted`): only visible
characters, so no other control character, bidi override or zero-width character
survives, and a line break only where the layout keeps lines (a page's text).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from lightsearch.evidence.render import clean_untrusted

# A string command (OSC, DCS, SOS, PM, APC) runs to BEL or ST (ESC \ or 0x9c); without
# a terminator only its introducer is removed, and its payload stays as inert text. A
# payload stops at any introducer, so hostile text full of them is still read once.
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9b-\x9f]*(?:\x07|\x1b\\|\x9c)"
# A control sequence: introducer, parameter bytes, intermediate bytes, a final byte.
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
# Any other escape: ESC, intermediate bytes, a final byte (a lone ESC goes later).
_OTHER = r"\x1b[ -/]*[0-~]"
_SEQUENCE = re.compile(f"{_STRING}|{_CSI}|{_OTHER}")
_INTRODUCERS = re.compile(r"[\x1b\x90\x98\x9b\x9c\x9d\x9e\x9f]")
_ANY_ESCAPE = re.compile(r"[\x1b\x80-\x9f]")


def terminal_text(value: Any, *, lines: bool = False) -> str:
    """``value`` as text a terminal shows as written: escape sequences removed whole, then
    only visible characters (one line, or several with ``lines=True``)."""
    text = "" if value is None else str(value)
    if _ANY_ESCAPE.search(text):
        text = _INTRODUCERS.sub("", _SEQUENCE.sub("", text))
    return clean_untrusted(text, single_line=not lines, fold_width=False)


# JSON escapes the C0 controls but leaves every other character as it is: DEL and the C1
# controls (a C1 CSI or OSC starts a sequence on some terminals), format characters (bidi
# overrides, zero-width), line and paragraph separators, and lone surrogates (which cannot
# even be encoded) are written as escapes instead.
_NOT_PLAIN = re.compile("[^\x20-\x7e\n]")
_ESCAPED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if unicodedata.category(ch) not in _ESCAPED:
        return ch
    code = ord(ch)
    if code > 0xFFFF:  # a surrogate pair, as JSON writes a character beyond the BMP
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def terminal_json(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as JSON that is safe to print: the same JSON (every string reads back the
    same), with every character a terminal could act on written as a ``\\uXXXX`` escape.
    Such characters can only occur inside strings, where the escape means the same."""
    return _NOT_PLAIN.sub(_escape, json.dumps(value, ensure_ascii=False, indent=indent))
