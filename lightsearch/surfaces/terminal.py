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

import re
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
