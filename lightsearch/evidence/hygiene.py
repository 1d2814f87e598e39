"""Structured content cleaned like the model text.

A result's ``text`` is not the only thing an agent sees: MCP clients pass
``structuredContent`` to the model, ``-o json`` is read by programs and people, and a UI
shows hit titles and follows hit URLs. So every string field of a result passes the same
cleaning as the model text (:func:`lightsearch.evidence.render.clean_untrusted`: only
visible characters, no bidi or tag characters, no controls, fence look-alikes
neutralised), and every hit URL is normalised as a request would be and checked by the
transport guard:

* a hit whose URL the guard would refuse (a private or loopback address such as
  ``169.254.169.254`` or ``127.0.0.1:6379``, ``localhost``, credentials in the URL, a
  port outside ``LIGHT_ALLOWED_PORTS``, a scheme other than http(s)) is **dropped**, and a
  note says how many were and why (the guard's code and reason, never the URL): a hit is
  something an agent may fetch or a UI may link, and web_fetch would refuse it anyway;
* every other hit URL is the normalised form (``w3lib``'s ``safe_url_string``, what a
  request for it would use), so no newline, space or invisible character survives in it.

Page text is also where links are: in every field of page text handed out (a hit's
title, snippet and content, a page's title and byline, web_fetch's ``content``) a link the
transport guard would refuse keeps its text and loses its target, as
:mod:`lightsearch.evidence.outbound_links` renders it, and a hit's link fields (``discussionUrl``,
``publisherUrl``, any ``...Url``) are dropped when the guard would refuse them.

Page text kept in a web_fetch result's ``content`` is cleaned where it is read: invisible
characters are removed from the whole text (so offsets into it stay true), and the window
returned passes :func:`handed_out` (fence look-alikes neutralised, refused links made
text, layout kept); the envelopes skip it and ``text``, which is the renderer's own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from w3lib.url import safe_url_string

from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import check_url
from lightsearch.evidence.model import Evidence, ResultLimits
from lightsearch.evidence.outbound_links import LinkJudge, safe_links
from lightsearch.evidence.render import clean_untrusted, neutralise_fences, strip_invisible

#: Result fields whose values are several lines of page text.
MULTILINE = frozenset({"content"})
MAX_DEPTH = 32
_URL = re.compile(r"https?://\S+\Z", re.IGNORECASE)
_WORD_IN_URL = re.compile(r"external[\W_]*data", re.IGNORECASE)
_LAYOUT = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


_SHORT: dict[str, str] = {}  # short single-line values (keys, codes, enums) repeat: cleaned once
_SHORT_CHARS = 64
_SHORT_LIMIT = 4096


def clean_text(value: Any, *, single_line: bool = True) -> str:
    """A structured string as the model text would show it; fullwidth forms (CJK
    punctuation) stay as written, since no fence line is read from a field. A URL stays a
    URL (:func:`clean_url_text`)."""
    short = single_line and isinstance(value, str) and len(value) <= _SHORT_CHARS
    if short and value in _SHORT:
        return _SHORT[value]
    if isinstance(value, str) and _URL.match(value):
        out = clean_url_text(value)
    else:
        out = clean_untrusted(value, single_line=single_line, fold_width=False)
    if short and len(_SHORT) < _SHORT_LIMIT:
        _SHORT[value] = out
    return out


def clean_url_text(url: str) -> str:
    """A URL without invisible characters or whitespace, whose path, query and fragment
    hold no fence look-alike: angle brackets and the first letter of the fence word are
    percent-encoded, which names the same resource (RFC 3986 §6.2.2.2). The host is left
    as it is: it can hold no angle bracket, and a name is not a fence."""
    text = _LAYOUT.sub("", strip_invisible(url))  # what strip_invisible leaves: spaces, breaks, controls
    try:
        parts = urlsplit(text)
    except ValueError:
        return clean_untrusted(text)

    def escape(part: str) -> str:
        part = part.replace("<", "%3C").replace(">", "%3E")
        return _WORD_IN_URL.sub(lambda m: f"%{ord(m.group(0)[0]):02X}{m.group(0)[1:]}", part)

    return urlunsplit(parts._replace(path=escape(parts.path), query=escape(parts.query),
                                     fragment=escape(parts.fragment)))


def handed_out(text: str, judge: LinkJudge) -> str:
    """Page text as it may be handed out: no link the guard would refuse and no fence
    look-alike (both cleanings, until neither changes anything); otherwise as it was."""
    return safe_links(text, judge, also=neutralise_fences)


def clean_field(value: Any) -> Any:
    """A single-line structured value cleaned (non-strings as they are)."""
    return clean_text(value) if isinstance(value, str) else value


def clean_structured(value: Any, *, keep: Collection[str] = ("text",), multiline: Collection[str] = MULTILINE,
                     _depth: int = 0) -> Any:
    """``value`` with every string cleaned (dictionary keys too): the fields named in
    ``multiline`` keep their line breaks, the ones in ``keep`` are left as they are."""
    if isinstance(value, str):
        return clean_text(value)
    if _depth > MAX_DEPTH:
        return None
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in keep:
                out[key] = item
            elif key in multiline and isinstance(item, str):
                out[clean_field(key)] = clean_text(item, single_line=False)
            else:
                out[clean_field(key)] = clean_structured(item, keep=keep, multiline=multiline, _depth=_depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [clean_structured(item, keep=keep, multiline=multiline, _depth=_depth + 1) for item in value]
    return value


def guarded_url(url: Any, limits: ResultLimits) -> tuple[str | None, str | None]:
    """(normalised URL, None), or (None, why) when the transport guard would refuse it."""
    if not isinstance(url, str) or not url.strip():
        return None, "invalid_url: no URL"
    try:
        normal = clean_url_text(safe_url_string(url.strip()))
        check_url(normal, allowed_ports=limits.allowed_ports, trusted_hosts=limits.trusted_hosts,
                  private_origins=limits.private_origins)
    except GuardRefusal as exc:
        return None, f"{exc.code}: {exc.details().get('reason') or 'refused'}"
    except (ValueError, TypeError, UnicodeError):
        return None, "invalid_url: malformed"
    return normal, None


def _linked_fields(extra: dict[str, Any], judge: LinkJudge) -> dict[str, Any]:
    """A hit's provider fields: a link field the guard would refuse is left out, page text
    in the others loses its refused links."""
    out = {}
    for key, value in extra.items():
        if isinstance(value, str):
            if key.lower().endswith("url"):
                if not judge.allowed(value):
                    continue
            else:
                value = handed_out(value, judge)
        out[key] = value
    return out


def clean_evidence(evidence: Iterable[Evidence], limits: ResultLimits) -> tuple[list[Evidence], list[str]]:
    """The evidence with every field cleaned and every URL normalised, and the notes for
    the hits dropped because the guard would refuse their URL."""
    kept: list[Evidence] = []
    refused: Counter[str] = Counter()
    for e in evidence:
        url, why = guarded_url(e.url, limits)
        if url is None:
            refused[str(why)] += 1
            continue
        original = guarded_url(e.original_url, limits)[0] if e.original_url else None
        judge = LinkJudge(limits.allowed_ports, base=url)

        def text(value: Any, *, single_line: bool = True, judge: LinkJudge = judge) -> str:
            return handed_out(clean_text(value, single_line=single_line), judge)

        kept.append(replace(
            e, url=url, original_url=original, title=text(e.title), source=clean_text(e.source),
            snippet=text(e.snippet), content=text(e.content, single_line=False) if e.content else e.content,
            source_name=text(e.source_name) if isinstance(e.source_name, str) else e.source_name,
            published_at=clean_field(e.published_at),
            modified_at=clean_field(e.modified_at), retrieved_at=clean_field(e.retrieved_at),
            language=clean_field(e.language), extra=_linked_fields(clean_structured(e.extra), judge)))
    notes = [f"{n} hit(s) dropped: the URL points where web_fetch would refuse to go ({why})"
             for why, n in sorted(refused.items())]
    return kept, notes


__all__ = ["clean_evidence", "clean_field", "clean_structured", "clean_text", "guarded_url",
           "handed_out"]
