"""Which links a text hands out, read as renderers read them, and which of those are refused.

Written apart from :mod:`lightsearch.evidence.outbound_links` so that a mistake there is not
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

from hypothesis import strategies as st
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


# ------------------------------------------------------------------ texts made of link constructs
# Six dangerous targets, and the forms the guard and browsers read alike.
DANGEROUS = ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
             "file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:6379/"]
DISGUISED = ["JaVaScRiPt:alert(1)", " javascript:x", "java\tscript:x", "jav&#x61;script:x", "jav&#97;script:x",
             "javascript&colon;x", "http://[::1]/", "http://0x7f.1/", "http://2130706433/",
             "http://localhost/admin", "https://user:pass@example.com/", "http://example.com:6379/",
             "//127.0.0.1/", "/\\127.0.0.1/", "http:\\\\127.0.0.1\\", "http:/127.0.0.1/", "HTTP://127.0.0.1",
             "http://metadata.google.internal/", "mailto:a@example.com", "ftp://files.example.com/a",
             "http&#58;//127.0.0.1/", "http://127.0.0.1&#47;x",
             "http://10.0.0.1/", "https://intranet.corp.internal/x", "http://[::ffff:127.0.0.1]/",
             "tel:+100", "http://127.1/", "https://%31%32%37.0.0.1/"]
ALLOWED = ["https://example.com/a", "http://www.example.org/x_(y)", "/relative", "../up", "#frag", "?q=1",
           "https://example.com:8443/x", "https://xn--bcher-kva.example/", "https://he.wikipedia.org/wiki/%D7%90"]
TARGETS = DANGEROUS + DISGUISED + ALLOWED


def forms(target: str, text: str) -> list[str]:
    return [f"[{text}]({target})", f"[{text}](<{target}>)", f"![{text}]({target})", f'[{text}]({target} "t")',
            f"<{target}>", f"\n[{text}]: {target}\n", f'<a href="{target}">{text}</a>', f"<a href='{target}'>",
            f"<a href={target}>{text}</a>", f'<img src="{target}">', f'<img srcset="{target} 1x, /a.png 2x">',
            f'<meta http-equiv="refresh" content="0; url={target}">', f" {target} ", f'<div style="background:url({target})">',
            f"[{text}]({target})[{text}](/ok)", f"[[{text}]]({target})", f"[{text} [x]]({target})"]


glue = st.lists(st.sampled_from([*"ab [](){}<>!\\&#;:/ \n\"'=.-_*`", "www.", "://", "&#58;", "\n\n", "\u2039", "\u00ab",
                                 "\u226a", "EXTERNAL", "_DATA", "<<"]),
                max_size=12).map("".join)
construct = st.builds(lambda target, text, i: forms(target, text)[i % 17],
                      st.sampled_from(TARGETS) | st.text(alphabet="hjtps:/.\\&#x[]()<>@0127ab ", max_size=24),
                      st.text(alphabet="ab [](!\\ /:.&#", max_size=6), st.integers(0, 16))
texts = st.lists(st.one_of(construct, glue), max_size=8).map("".join)


