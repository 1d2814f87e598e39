"""Pages that stand in front of the content: cookie/consent walls, paywalls, JS shells.

Detected from the page itself, never from the host name: a wall is a page whose visible
text is short and dominated by consent or subscription language, or by a container
whose id/class says it is one; a JavaScript shell is a page with (almost) no visible
text but scripts, a ``<noscript>`` plea or an empty application root. Both are checked
only when extraction found little article text, so a long article that merely carries a
cookie banner is read normally.
"""

from __future__ import annotations

import re

from parsel import Selector

from lightsearch.documents.html_extract import guarded
from lightsearch.documents.xmlsafe import scrub_surrogates

PAYWALL_OR_COOKIE_WALL = "paywall_or_cookie_wall"
JAVASCRIPT_REQUIRED = "javascript_required"

# Article text longer than this is content, whatever banners surround it.
SHORT_TEXT = 600

_WALL_PHRASES = re.compile(
    r"\b(accept (all )?cookies|cookie (consent|settings|preferences|policy)|we use cookies"
    r"|manage (your )?(consent|preferences|cookies)|consent to (the use of )?cookies"
    r"|before you continue|reject all|your privacy choices"
    r"|subscribe (now )?to (continue|read|keep reading)|to continue reading|continue reading with"
    r"|already a subscriber|subscribers only|this (article|content) is (only )?(available|for) (to )?subscribers"
    r"|sign in to (continue|read)|log in to (continue|read)|create a free account to (continue|read)"
    r"|you have reached your (free )?(article )?limit|unlock (this|full) article)\b",
    re.IGNORECASE,
)
_WALL_CONTAINERS = (
    "//*[re:test(concat(@id, ' ', @class), "
    "'(cookie|consent|gdpr|cmp-|paywall|subscribe-wall|regwall|piano)', 'i')]"
)
_JS_PHRASES = re.compile(
    r"(enable javascript|javascript (is )?(required|disabled)|requires javascript"
    r"|turn on javascript|needs javascript|please enable js|browser (does not|doesn't) support)",
    re.IGNORECASE,
)
_APP_ROOTS = "//body//*[@id='root' or @id='app' or @id='__next' or @id='__nuxt' or @id='svelte']"


def _visible_text(sel: Selector) -> str:
    parts = sel.xpath(
        "//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript"
        " or ancestor::template)]"
    ).getall()
    return " ".join(" ".join(parts).split())


def detect_wall(html: str, extracted_text: str) -> str | None:
    """``paywall_or_cookie_wall``, ``javascript_required`` or None for a readable page;
    ExtractionError when the markup cannot be read at all."""
    if len(extracted_text) >= SHORT_TEXT:
        return None
    html = scrub_surrogates(html)
    return guarded("wall detection", lambda: _detect_wall(html))


def _detect_wall(html: str) -> str | None:
    sel = Selector(text=html or "<html/>")
    visible = _visible_text(sel)
    phrases = _WALL_PHRASES.findall(visible)
    wall_text = " ".join(
        " ".join(" ".join(node.xpath(".//text()").getall()).split())
        for node in sel.xpath(_WALL_CONTAINERS)
    )
    if len(phrases) >= 2 or (phrases and len(wall_text) >= 0.3 * max(len(visible), 1)):
        return PAYWALL_OR_COOKIE_WALL
    scripts = len(sel.xpath("//script"))
    noscript = " ".join(sel.xpath("//noscript//text()").getall())
    empty_root = any(
        not " ".join(node.xpath(".//text()").getall()).strip() for node in sel.xpath(_APP_ROOTS)
    )
    if len(visible) < 200 and (
        _JS_PHRASES.search(noscript) or _JS_PHRASES.search(visible) or (scripts and empty_root)
        or scripts >= 3
    ):
        return JAVASCRIPT_REQUIRED
    return None
