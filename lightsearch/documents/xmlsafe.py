"""Repairs applied to hostile documents before a parser sees them.

Two constructs in otherwise readable documents make the parsers raise instead of
recovering: an XML declaration naming an encoding that is no codec label at all
(``encoding="\\x80"`` raises UnicodeDecodeError in feedparser, ``encoding="\\x00"``
ValueError, and lxml gives up on the whole document), and a numeric character reference
to a code point XML does not allow (``&#xD800;`` becomes a lone surrogate that cannot be
encoded again; ``&#99999999999;`` is no character). Both are repaired in place, the
label by dropping it (the parser then sniffs, as for a document without one) and the
reference by U+FFFD, so the rest of the document is read as it would have been.
Text handed to lxml must not carry lone surrogates either (:func:`scrub_surrogates`).

Entities are never expanded. lxml is always asked not to (``resolve_entities=False``,
``no_network=True``, no ``huge_tree``: documents/sitemaps.py); feedparser has no such
switch (its SAX parser expands what the internal subset declares, up to expat's own
8 MiB allowance, and its head-splitting misses declarations after a ``<x`` in an entity
value), so a feed's DOCTYPE loses its internal subset first (:func:`without_internal_subset`):
a few hundred bytes of nested entities are otherwise megabytes of callbacks. An entity a
feed then refers to is undefined: the strict parser stops and the loose one keeps the
reference as text.
"""

from __future__ import annotations

import codecs
import re

_DECL = re.compile(rb"\A(\xef\xbb\xbf)?(\s*<\?xml\b)([^>]{0,512}?)(\?>)", re.S)
_ENCODING = re.compile(rb"""\s+encoding\s*=\s*(["'])(.*?)\1""", re.S)
_LABEL = re.compile(rb"[A-Za-z][A-Za-z0-9._:-]{0,39}")
_CHAR_REF = re.compile(rb"&#([xX][0-9A-Fa-f]+|[0-9]+);")
# In the prolog: a comment, a processing instruction, the DOCTYPE (group 1), or the root element.
_PROLOG = re.compile(rb"<!--.*?-->|<\?.*?\?>|(<!DOCTYPE\b)|<[A-Za-z_:]", re.S | re.IGNORECASE)
_DECLARATION_END = re.compile(rb"[\[>\"']")
# Inside an internal subset: a quoted literal, a comment, a processing instruction, or its end.
_SUBSET_TOKEN = re.compile(rb"\"[^\"]*\"|'[^']*'|<!--.*?-->|<\?.*?\?>|\]", re.S)
REPLACEMENT_REF = b"&#xFFFD;"


def _usable_label(label: bytes) -> bool:
    if not _LABEL.fullmatch(label):
        return False
    try:
        codecs.lookup(label.decode("ascii"))
    except LookupError:
        return False
    return True


def clean_declaration(body: bytes) -> bytes:
    """``body`` with an unusable ``encoding`` label removed from its XML declaration."""
    match = _DECL.match(body)
    if match is None:
        return body
    attrs = match.group(3)
    enc = _ENCODING.search(attrs)
    if enc is None or _usable_label(enc.group(2)):
        return body
    attrs = attrs[:enc.start()] + attrs[enc.end():]
    return body[:match.start(3)] + attrs + body[match.end(3):]


def _xml_char(code: int) -> bool:
    # XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD \
        or 0x10000 <= code <= 0x10FFFF


def _char_ref(match: re.Match[bytes]) -> bytes:
    ref = match.group(1)
    digits = ref[1:] if ref[:1] in (b"x", b"X") else ref
    if len(digits.lstrip(b"0")) > 8:  # past U+10FFFF whatever the base; int() stays small
        return REPLACEMENT_REF
    code = int(digits, 16) if ref[:1] in (b"x", b"X") else int(digits)
    return match.group(0) if _xml_char(code) else REPLACEMENT_REF


def clean_char_refs(body: bytes) -> bytes:
    """``body`` with references to code points outside XML's Char range as U+FFFD."""
    if b"&#" not in body:
        return body
    return _CHAR_REF.sub(_char_ref, body)


def without_internal_subset(body: bytes) -> bytes:
    """``body`` with the internal subset (``[...]``, where entities are declared) of its
    DOCTYPE removed; a DOCTYPE whose subset never ends is removed with the rest of the
    document (nothing after an unterminated declaration is markup). Only the prolog is
    read: comments and processing instructions are skipped, the first element ends it."""
    for token in _PROLOG.finditer(body):
        if token.group(1) is None:
            if token.group().startswith((b"<!--", b"<?")):
                continue
            return body  # the root element: no DOCTYPE before it
        bracket = _DECLARATION_END.search(body, token.end())
        while bracket is not None and bracket.group() in (b'"', b"'"):  # a public or system literal
            end = body.find(bracket.group(), bracket.end())
            bracket = None if end < 0 else _DECLARATION_END.search(body, end + 1)
        if bracket is None or bracket.group() != b"[":
            return body
        for inner in _SUBSET_TOKEN.finditer(body, bracket.end()):
            if inner.group() == b"]":
                return body[:bracket.start()] + body[inner.end():]
        return body[:token.start()]
    return body


def scrub_surrogates(text: str) -> str:
    """``text`` with lone surrogates as U+FFFD; lxml refuses a string holding one."""
    return scrubbed_utf8(text)[0]


def scrubbed_utf8(text: str) -> tuple[str, bytes]:
    """``text`` scrubbed (:func:`scrub_surrogates`) and its UTF-8 bytes, from one
    encoding of it (lxml parses those bytes faster than the string)."""
    try:
        return text, text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "replace")
        return data.decode("utf-8"), data
