"""Which links a text hands out, read as renderers read them, and which of those are refused.

Written apart from :mod:`lightsearch.evidence.links` so that a mistake there is not
mirrored here: Markdown is read by markdown-it-py (CommonMark, raw HTML on, every link
reported whatever its scheme, reference definitions included), HTML by the standard
library's tokenizer over the whole text (as a page that renders it raw would), and bare
URLs (GFM's ``scheme://`` and ``www.`` autolinks, a terminal's ``scheme://``) by a regular
expression over the text as written and over markdown-it's decoded text. A link is
refused when the transport guard would refuse the URL it leads to, resolved against the
page as a browser resolves it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

from markdown_it import MarkdownIt
from w3lib.url import safe_url_string

from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import DEFAULT_ALLOWED_PORTS, check_url

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "poster", "background", "cite", "data", "codebase",
                  "longdesc", "lowsrc", "dynsrc", "usemap", "icon", "manifest", "profile", "archive", "classid",
                  "xlink:href"}
_BARE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`]*|(?:^|(?<=[\s*_~(]))www\.[A-Za-z0-9][^\s<>\"'`]*",
                   re.IGNORECASE)
_TRAILING = ".,:;!?*_~'\")]}>"


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True})
    md.validateLink = lambda url: True  # report javascript: and the rest, do not drop them
    md.normalizeLink = lambda url: url
    md.normalizeLinkText = lambda url: url
    return md


_MD = _markdown()


def refused(href: str, base: str, ports=DEFAULT_ALLOWED_PORTS) -> bool:
    """Whether following ``href`` from ``base`` leads where the guard would not go."""
    url = re.sub(r"[\t\n\r]", "", href).strip("".join(chr(c) for c in range(0x21)))
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    if scheme is None or scheme.group(1).lower() in ("http", "https"):  # WHATWG: \ is / before the query
        cut = re.search(r"[?#]", url)
        at = cut.start() if cut else len(url)
        url = url[:at].replace("\\", "/") + url[at:]
    if scheme is None:
        url = urljoin(base, url)
    elif scheme.group(1).lower() in ("http", "https"):
        url = scheme.group(1) + "://" + url[len(scheme.group(0)):].lstrip("/")
    if not re.match(r"https?://", url, re.IGNORECASE):
        return True
    try:
        check_url(safe_url_string(url), allowed_ports=ports)
    except (GuardRefusal, ValueError, UnicodeError):
        return True
    return False


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in URL_ATTRIBUTES:
                self.urls.append(value)
            elif name in ("srcset", "imagesrcset"):
                self.urls.extend(c.split()[0] for c in value.split(",") if c.strip())
            elif name == "ping":
                self.urls.extend(value.split())
            elif name == "content" and re.match(r"\s*[\d.]*\s*[;,]", value):
                target = re.sub(r"^\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?", "", value, flags=re.IGNORECASE).strip()
                self.urls.append(target.strip("'\""))
            elif name == "style":
                self.urls.extend(m.group(2) for m in re.finditer(r"url\(\s*(['\"]?)(.*?)\1\s*\)", value, re.I | re.S))

    handle_startendtag = handle_starttag


def bare_urls(text: str) -> list[str]:
    out = []
    for m in _BARE.finditer(text):
        url = m.group(0)
        if url.lower().startswith("www."):
            url = "http://" + url
        authority = re.split(r"[/?#\\]", url.split("://", 1)[1], maxsplit=1)[0].rstrip(_TRAILING)
        if authority or not url.lower().startswith(("http:", "https:")):  # "http://" alone is no link
            out.append(url.split("://", 1)[0] + "://" + authority + "/")
    return out


def links(text: str) -> list[str]:
    """Every link target a renderer or autolinker would make of ``text``."""
    found: list[str] = []
    env: dict = {}
    tokens = _MD.parse(text, env)
    found.extend(ref["href"] for ref in env.get("references", {}).values())
    for token in tokens:
        if token.type in ("fence", "code_block"):
            found.extend(bare_urls(token.content))
        for child in token.children or ():
            if child.type == "link_open":
                found.append(child.attrs.get("href", ""))
            elif child.type == "image":
                found.append(child.attrs.get("src", ""))
            elif child.type in ("text", "code_inline"):
                found.extend(bare_urls(child.content))
    tags = _Tags()
    tags.feed(text.replace("<!", "< !"))  # declarations carry no link; 3.11's parser asserts on some
    tags.close()
    found.extend(tags.urls)
    found.extend(bare_urls(text))
    return found


def refused_links(text: str, base: str, ports=DEFAULT_ALLOWED_PORTS) -> list[str]:
    """The links of ``text`` that lead where the guard would not go (empty: none)."""
    return [href for href in links(text) if refused(href, base, ports)]
