"""Links handed out: http(s) only, and none the transport guard would refuse.

Page text reaches people and programs that follow links: a UI renders a result's
``content`` as Markdown (with its HTML), an agent fetches what a page links to, a
terminal makes URLs clickable. So every link in the text we hand out (web_fetch's
``content`` in every format, search hits' titles, snippets and page text, and from them
the model text) is judged as the transport guard judges a URL a real user asks for
(:func:`lightsearch.crawl.guard.urls.check_url`: http(s) only, no userinfo, only
``LIGHT_ALLOWED_PORTS``, no private, loopback, link-local or metadata address, no
internal name), and a link it would refuse **keeps its text and loses its target**:

* ``[text](target "title")`` becomes ``text``, and ``![alt](target)`` becomes ``alt``;
* an autolink ``<target>`` becomes its bare text (and then the rule for bare URLs);
* a reference definition ``[label]: target`` loses its target (its references are then
  plain text);
* a URL attribute of HTML in the text (``href=``, ``src=``, ``action=``, ``srcset=``, a
  refresh ``content=``, a ``style=`` with ``url(...)``...) is removed from its tag;
* a bare URL (``scheme://...`` or ``www....``), which is its own text, keeps every
  character but has its scheme separator bracketed, ``http[://]127.0.0.1:6379/`` or
  ``www[.]localhost``, which no Markdown renderer, autolinker or terminal reads as a link.

Links the guard allows are left exactly as written; a relative link is judged as a
browser resolves it against the page (or the page's ``<base href>``, which this very
rule removes when it points where the guard would not go), and is not rewritten.
Targets are decoded as renderers decode them (HTML entities, Markdown backslash
escapes, the tabs and line breaks URL parsers drop, backslashes read as slashes) and a
link is refused when any reading of it is.

**The host map is not consulted.** ``LIGHT_HOST_MAP`` says where this process connects
for a name (the offline origins map ``www.nasa.gov`` to ``127.0.0.1:<port>``); it does
not change what a link is for whoever follows it, so links are judged with no map:
names by their form (an internal name is refused, a public-looking one is not resolved:
a later lookup by the follower could answer anything), addresses by their class, so a
link to ``127.0.0.1`` is refused whatever the map and the allowed ports say.

The work is linear in the text: constructs are found by regular expressions, a
destination is scanned at most :data:`MAX_URL_CHARS` characters with at most
:data:`MAX_NESTING` open parentheses (markdown-it's limit), and the guard is asked about
at most :data:`MAX_JUDGED` distinct ``scheme://authority`` pairs per text (verdicts are
cached by that pair; a text that names more has its further links refused).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection
from urllib.parse import urljoin

from w3lib.url import safe_url_string

from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import DEFAULT_ALLOWED_PORTS, check_url

MAX_URL_CHARS = 2048
MAX_NESTING = 32
MAX_JUDGED = 256
#: Link markers a text handed out in one piece may hold (web_fetch ends a window early
#: rather than judge more): the cleaning's work per call is bounded by this, not by the
#: page, whatever ``maxChars`` is.
MAX_LINKS = 512
_CACHE_LIMIT = 8192
_VERDICTS: dict[tuple[str, str, frozenset[int]], bool] = {}

_FALLBACK_BASE = "https://page.invalid/"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_DROPPED = re.compile(r"[\t\n\r]")
_EDGES = "".join(chr(c) for c in range(0x21))  # C0 controls and space, stripped from both ends
_AUTHORITY_END = re.compile(r"[/?#]")
_ASCII_AUTHORITY = re.compile(r"[A-Za-z0-9.\-:\[\]]*")
_PLAIN_ABSOLUTE = re.compile(r"(https?)://([^/\\?#\x00-\x20\x7f]*)(?=[/?#]|\Z)", re.IGNORECASE)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_QUICK = re.compile(r"://|\]\(|\]:|<[A-Za-z]|=|www\.|&|\\", re.IGNORECASE)


class LinkJudge:
    """Whether a link may be handed out: the transport guard's verdict on where it leads.

    ``base`` is the page the text came from (relative links are resolved against it).
    One judge serves one text: it counts the distinct authorities the text names
    (:data:`MAX_JUDGED`).
    """

    def __init__(self, allowed_ports: Collection[int] = DEFAULT_ALLOWED_PORTS, base: str | None = None) -> None:
        self.allowed_ports = frozenset(allowed_ports)
        self.base = base if base and _scheme(base) in ("http", "https") else _FALLBACK_BASE
        self.judged: set[tuple[str, str]] = set()

    def for_page(self, base: str | None) -> LinkJudge:
        """A judge with the same ports for the text of another page."""
        return LinkJudge(self.allowed_ports, base)

    def allowed(self, href: str) -> bool:
        """True when the link ``href`` (as written, already decoded) leads where the
        guard would let a real user's request go."""
        if len(href) > MAX_URL_CHARS:
            return False
        plain = _PLAIN_ABSOLUTE.match(href)
        if plain is not None:  # most links: an absolute http(s) URL with nothing to normalise
            return self._verdict(plain.group(1).lower(), plain.group(2))
        href = _DROPPED.sub("", href).strip(_EDGES)
        scheme = _scheme(href)
        if scheme is None:  # relative: as a browser resolves it against the page
            href = _slashed(href)
            try:
                href = urljoin(self.base, href)
            except ValueError:
                return False
            scheme = _scheme(href)
        if scheme not in ("http", "https"):
            return False
        # Special schemes: any run of slashes (either way) after the colon starts the
        # authority, which ends at the first slash, backslash, ``?`` or ``#``.
        rest = _slashed(href[len(scheme) + 1:]).lstrip("/")
        end = _AUTHORITY_END.search(rest)
        authority = rest[: end.start()] if end else rest
        return self._verdict(scheme, authority)

    def _verdict(self, scheme: str, authority: str) -> bool:
        # Counted per text whether the verdict is cached or not, so the same text is
        # always cleaned the same way (web_fetch pages through it by offsets).
        pair = (scheme, authority.lower())
        if pair not in self.judged:
            if len(self.judged) >= MAX_JUDGED:
                return False
            self.judged.add(pair)
        key = (*pair, self.allowed_ports)
        verdict = _VERDICTS.get(key)
        if verdict is not None:
            return verdict
        url = f"{scheme}://{authority}/"
        try:
            # the URL as a request would carry it (a plain ASCII authority already is)
            check_url(url if _ASCII_AUTHORITY.fullmatch(authority) else safe_url_string(url),
                      allowed_ports=self.allowed_ports)
            verdict = True
        except (GuardRefusal, ValueError, TypeError, UnicodeError):
            verdict = False
        if len(_VERDICTS) >= _CACHE_LIMIT:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
        return verdict

    def allowed_any_reading(self, href: str, *, markdown: bool = False) -> bool:
        """``href`` allowed as written and as renderers decode it (entities; with
        ``markdown``, backslash escapes too)."""
        if "&" not in href and "\\" not in href:
            return self.allowed(href)
        readings = {href, html.unescape(href)}
        if markdown:
            readings |= {_ESCAPE.sub(r"\1", r) for r in tuple(readings)}
            readings.add(html.unescape(_ESCAPE.sub(r"\1", href)))
        return all(self.allowed(r) for r in readings)


def _scheme(url: str) -> str | None:
    m = _SCHEME.match(url)
    return m.group(1).lower() if m else None


def _slashed(text: str) -> str:
    """Backslashes before the query read as slashes, as WHATWG parsers read special URLs."""
    if "\\" not in text:
        return text
    cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=len(text))
    return text[:cut].replace("\\", "/") + text[cut:]


# ---------------------------------------------------------------------------- HTML attributes
_URL_ATTRIBUTES = frozenset({
    "href", "src", "action", "formaction", "poster", "background", "cite", "data", "codebase", "longdesc",
    "lowsrc", "dynsrc", "usemap", "icon", "manifest", "profile", "archive", "classid",
})
# A start tag read as the HTML tokenizer reads it: after ``<`` and a letter, the tag name,
# then attributes (a name, and maybe ``=`` and a value: double-quoted, single-quoted or up
# to a space or ``>``), to the first ``>`` outside a value. One regex match per step.
_TAG_START = re.compile(r"<[A-Za-z][^\t\n\f\r />]*")
_BETWEEN = re.compile(r"[\t\n\f\r /]*")
_NAME = re.compile(r"=?[^\t\n\f\r />=]*")
_EQUALS = re.compile(r"[\t\n\f\r ]*=[\t\n\f\r ]*")
# An unterminated quoted value runs to the end for a browser (the tag is then never
# emitted), to the next ``>`` for lenient parsers; it is read the second way, so the tags
# after it are judged too.
_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'|[\"'][^>]*|[^\t\n\f\r >]*")
_REFRESH = re.compile(r"\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?(['\"]?)(.*?)\1\s*$", re.IGNORECASE | re.DOTALL)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)


def _attribute_refused(name: str, value: str, judge: LinkJudge) -> bool:
    """Whether the attribute ``name=value`` (value as written, unquoted) names a refused target."""
    name = name.lower().rsplit(":", 1)[-1]  # xlink:href is href
    if name not in _URL_ATTRIBUTES and name not in ("srcset", "imagesrcset", "ping", "content", "style"):
        return False
    if len(value) > 4 * MAX_URL_CHARS:
        return True
    value = html.unescape(value)  # browsers decode entities in attribute values
    if name in _URL_ATTRIBUTES:
        return not judge.allowed(value)
    if name in ("srcset", "imagesrcset"):
        return not all(judge.allowed(c.split(None, 1)[0]) for c in value.split(",") if c.strip())
    if name == "ping":
        return not all(judge.allowed(u) for u in value.split())
    if name == "content":  # <meta http-equiv=refresh content="0; url=...">
        m = _REFRESH.match(value)
        return m is not None and bool(m.group(2).strip()) and not judge.allowed(m.group(2))
    return any(not judge.allowed(m.group(2)) for m in _CSS_URL.finditer(value))  # style="...url(...)"


def _attributes(text: str, judge: LinkJudge) -> str:
    """Every attribute of an HTML start tag in ``text`` that takes a URL and names a
    refused target, removed (name, ``=`` and value)."""
    if "<" not in text:
        return text
    spans: list[tuple[int, int]] = []
    search = 0
    while (tag := _TAG_START.search(text, search)) is not None:
        pos = tag.end()
        while pos < len(text):
            pos = _BETWEEN.match(text, pos).end()
            if pos >= len(text) or text[pos] == ">":
                break
            start = pos
            name = _NAME.match(text, pos)
            pos = name.end()
            equals = _EQUALS.match(text, pos)
            if equals is None:
                continue
            value = _VALUE.match(text, equals.end())
            pos = value.end()
            raw = value.group(0)
            if raw[:1] in ("\"", "'"):
                raw = raw[1:-1] if len(raw) > 1 and raw[-1] == raw[0] else raw[1:]
            if _attribute_refused(name.group(0), raw, judge):
                spans.append((start, pos))
        search = pos + 1
    return _removed(text, spans)


# ---------------------------------------------------------------------------- Markdown
_CLOSER = re.compile(r"\]\(")
_POINTY = re.compile(rf"<((?:[^<>\n\\]|\\.){{0,{MAX_URL_CHARS}}})>")
_SPACE = re.compile(r"[ \t]*(?:\r?\n[ \t]*)?")
_TITLE = re.compile(rf"[ \t\n]+(?:\"(?:[^\"\\]|\\.){{0,{MAX_URL_CHARS}}}\"|'(?:[^'\\]|\\.){{0,{MAX_URL_CHARS}}}'"
                    rf"|\((?:[^()\\]|\\.){{0,{MAX_URL_CHARS}}}\))|")
_CLOSE = re.compile(r"[ \t\n]*\)")
_DEFINITION = re.compile(
    r"^ {0,3}\[(?:[^\[\]\\]|\\.){1,999}\]:[ \t]*(?:\n[ \t]*)?(<(?:[^<>\n\\]|\\.)*>|[^\s<][^\s]*)",
    re.MULTILINE)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL_AUTOLINK = re.compile(
    r"<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*)>")
#: How far back the ``[`` of a refused link is looked for (on its own paragraph).
_OPENER_REACH = 1000


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` is backslash-escaped (an odd run of backslashes before it)."""
    if at == 0 or text[at - 1] != "\\":
        return False
    run = 0
    while at - run - 1 >= 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


_RAW_RUN = re.compile(r"[^\x00-\x20\x7f()\\]+")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _raw_destination(text: str, start: int) -> tuple[int, bool]:
    """(end, complete): a CommonMark raw link destination from ``start``; ``complete`` is
    False when the scan stopped at a bound (the target is then refused whatever it is)."""
    depth, i, n = 0, start, len(text)
    limit = min(n, start + MAX_URL_CHARS)
    while i < limit:
        run = _RAW_RUN.match(text, i, limit)
        if run is not None:
            i = run.end()
            continue
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _PUNCTUATION:
            i += 2
            continue
        if ch == "\\":
            i += 1
            continue
        if ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                return i, False
        elif ch == ")":
            if depth == 0:
                return i, True
            depth -= 1
        else:  # a space or a control ends it
            return i, True
        i += 1
    return i, i >= n


def _inline_links(text: str, judge: LinkJudge) -> str:
    """``[text](target)`` and ``![alt](target)`` whose target is refused become their text."""
    if "](" not in text:
        return text
    # Every ``](`` is judged on its own, even inside another's destination: which of two
    # nested candidates a renderer takes for the link depends on brackets before them, so
    # both are read as links (a refused one inside an allowed destination only shortens it).
    edits: list[tuple[int, int]] = []  # spans to remove
    for m in _CLOSER.finditer(text):
        closer = m.start()
        if _escaped(text, closer):
            continue
        at = _SPACE.match(text, m.end()).end()
        if text.startswith("<", at):
            pointy = _POINTY.match(text, at)
            if pointy is None:
                continue  # not a destination: the bracket and parenthesis are text
            target, end, complete = pointy.group(1), pointy.end(), True
        else:
            end, complete = _raw_destination(text, at)
            target = text[at:end]
        title_end = _TITLE.match(text, end).end()
        close = _CLOSE.match(text, title_end)
        link_end = close.end() if close else end
        if complete and judge.allowed_any_reading(target, markdown=True):
            continue
        opener = text.rfind("[", max(0, closer - _OPENER_REACH), closer)
        paragraph = text.rfind("\n\n", max(0, closer - _OPENER_REACH), closer)
        if opener >= 0 and opener > paragraph and not _escaped(text, opener) \
                and (not edits or opener >= edits[-1][1]):
            image = opener > 0 and text[opener - 1] == "!" and not _escaped(text, opener - 1)
            edits.append((opener - 1 if image else opener, opener + 1))
        edits.append((closer, link_end))
    return _removed(text, edits)


def _removed(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at:
            start = at
        out.append(text[at:start])
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def _definitions(text: str, judge: LinkJudge) -> str:
    if "]:" not in text:
        return text
    spans = []
    for m in _DEFINITION.finditer(text):
        target = m.group(1)
        if target.startswith("<"):
            target = target[1:-1]
        if not judge.allowed_any_reading(target, markdown=True):
            spans.append(m.span(1))
    return _removed(text, spans)


def _autolinks(text: str, judge: LinkJudge) -> str:
    if "<" not in text:
        return text
    text = _AUTOLINK.sub(lambda m: m.group(0) if judge.allowed_any_reading(m.group(1)) else m.group(1), text)
    return _EMAIL_AUTOLINK.sub(lambda m: m.group(1), text)


# ---------------------------------------------------------------------------- bare URLs
# A bare URL is read where a renderer reads it: after HTML entities and Markdown backslash
# escapes are decoded (``http&#58;//127.0.0.1`` is a link once rendered). The text is
# scanned in that decoded view, and the separator is bracketed where it is in the text.
_BARE = re.compile(r"://|(?<![A-Za-z0-9.@/\-\]])www\.(?=[A-Za-z0-9])", re.IGNORECASE)
# the scheme before a "://": up to 32 scheme characters, not preceded by another
_SCHEME_BEFORE = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}\Z")
_BARE_AUTHORITY = re.compile(rf"[^\s/?#\\<>\"'`]{{0,{MAX_URL_CHARS}}}")
_TRAILING = ".,:;!?*_~'\")]}>"
_CODED = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)|\\[!-/:-@\[-`{-~]")


def _decoded(m: re.Match[str]) -> str:
    code = m.group(0)
    return code[1] if code[0] == "\\" else html.unescape(code)


def _decoded_view(text: str) -> tuple[str, list[int]]:
    """``text`` with entities and backslash escapes decoded, and for each decoded
    character (and one past the end) the index in ``text`` where its source begins."""
    pieces: list[str] = []
    starts: list[int] = []
    at = 0
    for m in _CODED.finditer(text):
        pieces.append(text[at:m.start()])
        starts.extend(range(at, m.start()))
        piece = _decoded(m)
        pieces.append(piece)
        starts.extend([m.start()] * len(piece))
        at = m.end()
    pieces.append(text[at:])
    starts.extend(range(at, len(text) + 1))
    return "".join(pieces), starts


def _bare(text: str, judge: LinkJudge) -> str:
    coded = ("&" in text or "\\" in text) and _CODED.search(text) is not None
    view = _CODED.sub(_decoded, text) if coded else text
    if "://" not in view and "www." not in view and "WWW." not in view.upper():
        return text
    view, starts = _decoded_view(text) if coded else (text, range(len(text) + 1))
    marks: list[tuple[int, str]] = []  # (index in text, bracket to insert there)
    for m in _BARE.finditer(view):
        if m.group(0) == "://":
            found = _SCHEME_BEFORE.search(view, max(0, m.start() - 33), m.start())
            if found is None:
                continue
            scheme, separator = found.group(0).lower(), m.start()
        else:
            scheme, separator = "www", m.end() - 1
        decoded = _BARE_AUTHORITY.match(view, m.end()).group(0).rstrip(_TRAILING)
        written = decoded if not coded else _BARE_AUTHORITY.match(text, starts[m.end()]).group(0).rstrip(_TRAILING)
        if scheme in ("http", "https", "www"):
            if not decoded and not written:
                continue  # "the http:// prefix": no host, no link
            prefix, check = ("www.", "http") if scheme == "www" else ("", scheme)
            if judge._verdict(check, prefix + decoded) and (written == decoded or judge._verdict(check, prefix + written)):
                continue
        marks += [(starts[separator], "["), (starts[m.end()], "]")]
    if not marks:
        return text
    out, at = [], 0
    for index, bracket in marks:
        out.append(text[at:index] + bracket)
        at = index
    out.append(text[at:])
    return "".join(out)


# ---------------------------------------------------------------------------- the bound
# What may start a link the passes judge: a Markdown destination or definition, a URL
# separator (written, escaped or as an entity), ``www.``, an autolink, and a URL
# attribute's ``=`` (found in the reversed text, where the pattern starts with a literal).
_NEAR = re.compile(r"\][(:]|://|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:|&(?:#0*58|#x0*3a|colon|#0*47|#x0*2f|sol);?"
                   r"|\\[:/]|[wW]{3}\.", re.IGNORECASE)
_ATTRIBUTE_NAMES = (*_URL_ATTRIBUTES, "srcset", "imagesrcset", "ping", "content", "style")
_ATTRIBUTE_REVERSED = re.compile(
    r"=[\t\n\f\r ]*(?:" + "|".join(sorted((n[::-1] for n in _ATTRIBUTE_NAMES), key=len, reverse=True))
    + r")(?![A-Za-z0-9_\-])", re.IGNORECASE)


def _markers(text: str, start: int, end: int) -> list[int]:
    """Where link markers start in ``text[start:end]``, in order (one regex pass each way)."""
    found = [m.start() for m in _NEAR.finditer(text, start, end)]
    if "=" in text[start:end]:
        last = end - 1
        found += [last - m.start() for m in _ATTRIBUTE_REVERSED.finditer(text[start:end][::-1])]
        found.sort()
    return found


def links_end(text: str, start: int, end: int) -> int:
    """Where ``text[start:end]`` must end to hold at most :data:`MAX_LINKS` link markers:
    ``end`` itself, or the start of the line (else the space) before the first marker
    past the bound."""
    found = _markers(text, start, end)
    if len(found) <= MAX_LINKS:
        return end
    at = found[MAX_LINKS]
    cut = max(text.rfind("\n", start, at), text.rfind(" ", start, at))
    return cut + 1 if cut >= start else max(at, start + 1)


def links_start(text: str, start: int, end: int) -> int:
    """Where ``text[start:end]`` must start to hold at most :data:`MAX_LINKS` link markers
    (the tail of a page: its last markers are kept)."""
    found = _markers(text, start, end)
    if len(found) <= MAX_LINKS:
        return start
    at = found[-MAX_LINKS] - 1  # past the markers that do not fit
    space = min((i for i in (text.find("\n", at, end), text.find(" ", at, end)) if i >= 0), default=at)
    return min(space + 1, end)


# ---------------------------------------------------------------------------- the pass
#: Passes over a text: one removal can make a link of what was around it
#: (``[a]](javascript:x)(http://127.0.0.1/)``), which the next pass sees.
MAX_PASSES = 3


def _one_pass(text: str, judge: LinkJudge) -> str:
    text = _attributes(text, judge)
    text = _inline_links(text, judge)
    text = _definitions(text, judge)
    text = _autolinks(text, judge)
    return _bare(text, judge)


def safe_links(text: str, judge: LinkJudge, *, also: Callable[[str], str] | None = None) -> str:
    """``text`` with every link the guard would refuse turned into its text (see the
    module docstring for how each kind is rendered); everything else as it was.

    ``also`` is another cleaning applied in every pass (the fence neutralisation, whose
    ASCII brackets can open a tag or an autolink, while a removed link can join brackets
    into a run): the passes go on until neither changes anything."""
    if not text or (also is None and not _QUICK.search(text)):
        return text
    for _ in range(MAX_PASSES):
        cleaned = _one_pass(text, judge) if _QUICK.search(text) else text
        if also is not None:
            cleaned = also(cleaned)
        if cleaned == text:
            return text
        text = cleaned
    # Still changing: a text built to nest refused links deeper than the passes go. No
    # inline link is left at all (CommonMark reads none across ``] (``).
    cleaned = _one_pass(text, judge)
    if also is not None:
        cleaned = also(cleaned)
    return cleaned.replace("](", "] (")


__all__ = ["MAX_JUDGED", "MAX_LINKS", "MAX_PASSES", "LinkJudge", "links_end", "links_start", "safe_links"]
