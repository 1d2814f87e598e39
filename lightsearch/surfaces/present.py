"""What the commands print for people, and the exit status; the one place both command
lines (``scrapy search|news|read`` and ``lightsearch search|news|fetch``) format a result.

A result is printed as it came from the front door, never rewritten: ``-o json`` the
envelope, ``-o jsonl`` one hit (or page) a line, ``-o text`` the model text the renderer
wrote, and for people (``table``) a list a terminal can show: per hit its title, source,
date and URL on one line each (a URL too long for the terminal is shortened in its
middle, never wrapped; the full one is in ``-o json``) and a snippet line, then the notes
(what was dropped, skipped, suspended or failed), the stop reason in words and one summary
line. Everything from a page is cleaned as the model text is, so no control sequence or
bidi override reaches the terminal.

The exit status says whether the command got what it asked for: 0 an answer (zero hits
from a healthy search included), 1 a failure (an error, every source or engine failed, a
page of several that failed), 2 a usage error (bad flags, printed by the parser). Why it
failed goes to stderr, except with ``-o text``, whose output is what a model would read
(an error's is its one ``ERROR:`` line) and ``-o json``, which prints the error object.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections import Counter
from typing import Any, TextIO

from lightsearch.evidence.render import clean_untrusted, error_line

# What a stop reason means, for people (the JSON keeps the code).
STOP_WORDS = {
    "completed": "completed: every source planned was read",
    "page_hops": "read its page allowance (LIGHT_MAX_PAGE_HOPS)",
    "hops": "spent its hop budget (LIGHT_MAX_HOPS)",
    "soft_deadline": "stopped starting requests at its soft deadline (LIGHT_SOFT_DEADLINE_SECS)",
    "deadline": "stopped at its hard deadline",
    "encoded_bytes": "spent its download budget (LIGHT_MAX_ENCODED_BYTES)",
    "decoded_bytes": "spent its decoded-bytes budget (LIGHT_MAX_DECODED_BYTES)",
    "candidates": "kept only its best candidate pages (LIGHT_DISCOVERY_MAX_CANDIDATES)",
    "all_engines_failed": "every engine failed",
    "cached": "answered from the cache",
}
# A search answered by nothing: every engine or every source failed.
FAILED_STOPS = ("all_engines_failed",)
SNIPPET_LINES = 2


def stop_in_words(reason: Any) -> str:
    return STOP_WORDS.get(str(reason), clean_untrusted(str(reason)))


def failed(result: dict[str, Any]) -> bool:
    """Whether the command got no answer: an error, a search no provider or engine answered,
    or a read of several pages where one failed."""
    if "error" in result:
        return True
    if result.get("provider") == "none" or result.get("stopReason") in FAILED_STOPS:
        return True
    return bool(result.get("failed"))


def show(command: str, result: dict[str, Any], output: str, *, wall_secs: float | None = None,
         out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print ``result`` of ``command`` (search, news or fetch) as ``output``; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    if "error" in result:
        if output in ("json", "jsonl"):
            print(json.dumps({"error": result["error"]}, ensure_ascii=False,
                             indent=2 if output == "json" else None), file=out)
        # -o text prints what a model reads, and an error's is its one line
        print(error_line(result["error"]), file=out if output == "text" else err)
        return 1
    if output == "json":
        print(json.dumps(result, ensure_ascii=False, indent=2), file=out)
    elif output == "jsonl":
        rows = result.get("hits", []) if command in ("search", "news") else result.get("results", [result])
        for row in rows:
            print(json.dumps(row, ensure_ascii=False), file=out)
    elif output == "text":
        print(result.get("text", ""), file=out)
    elif command in ("search", "news"):
        print(hit_list(result, wall_secs=wall_secs), file=out)
    else:
        print(page_view(result), file=out)
    if failed(result):
        print(f"ERROR: {why_failed(result)}", file=err)
        return 1
    return 0


def why_failed(result: dict[str, Any]) -> str:
    if result.get("failed"):
        return f"{result['failed']} of {result.get('count', '?')} pages could not be read"
    notes = [clean_untrusted(n) for n in result.get("notes") or [] if n]
    return "no provider answered: " + ("; ".join(notes[:3]) if notes else stop_in_words(result.get("stopReason")))


# --------------------------------------------------------------------------- searches
def hit_list(result: dict[str, Any], *, wall_secs: float | None = None, width: int | None = None) -> str:
    """Hits for people: title, then source, date and URL, then a snippet; notes, the stop
    reason in words and a summary line."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    hits = [h for h in result.get("hits") or [] if isinstance(h, dict)]
    lines: list[str] = []
    if not hits:
        lines.append(f"No results for {clean_untrusted(result.get('query'))!r}.")
    for i, hit in enumerate(hits, 1):
        lines.append(f"{i:>2}. {clean_untrusted(hit.get('title'))}")
        date = clean_untrusted(hit.get("publishedAt") or hit.get("modifiedAt") or "")[:10] or "-"
        source = clean_untrusted(hit.get("sourceName") or hit.get("source") or "-")
        engines = f" · {'+'.join(map(clean_untrusted, hit['engines']))}" if hit.get("engines") else ""
        head = f"    {source} · {date}{engines} · "
        lines.append(head + short_url(clean_untrusted(hit.get("url")), max(20, width - len(head))))
        snippet = clean_untrusted(hit.get("snippet") or "")
        if snippet:
            wrapped = textwrap.wrap(snippet, width=max(40, width - 4), initial_indent="    ",
                                    subsequent_indent="    ", max_lines=SNIPPET_LINES, placeholder=" …")
            lines.extend(wrapped)
        lines.append("")
    lines.extend(f"note: {clean_untrusted(n)}" for n in result.get("notes") or [] if n)
    lines.append(f"stop: {stop_in_words(result.get('stopReason'))}")
    lines.append(summary(result, hits, wall_secs))
    return "\n".join(lines)


def summary(result: dict[str, Any], hits: list[dict[str, Any]], wall_secs: float | None) -> str:
    meta = result.get("meta") or {}
    light = meta.get("lightSearch") or {}
    wall = light.get("elapsedMs", 0) / 1000 if wall_secs is None else wall_secs
    parts = [f"{len(hits)} hits"]
    if light:
        counts = light.get("counts") or {}
        consulted = (light.get("sources") or {}).get("consulted") or []
        selected = (light.get("sources") or {}).get("selected") or []
        parts += [f"sources consulted {len(consulted)}/{len(selected)} ({', '.join(consulted) or 'none'})",
                  f"hops {counts.get('requests', 0)}",
                  f"{counts.get('encodedBytes', 0) / 1024:.0f} KiB encoded, "
                  f"{counts.get('decodedBytes', 0) / 1024:.0f} KiB decoded"]
    else:
        parts.append(f"provider {clean_untrusted(result.get('provider'))}"
                     + (" (cached)" if result.get("cached") else ""))
    parts += [f"{wall:.2f} s", f"coverage {clean_untrusted((result.get('coverage') or {}).get('level'))}"]
    receipts = meta.get("webSources")
    if receipts:
        tally = Counter(e.get("presentation") for e in receipts.get("entries", []))
        parts.append("shown " + (", ".join(f"{n} {k}" for k, n in tally.items() if n) or "none"))
    return " | ".join(parts)


def short_url(url: str, room: int) -> str:
    """``url`` in at most ``room`` characters: the scheme dropped, then its middle cut."""
    shown = url.split("://", 1)[-1] if len(url) > room else url
    if len(shown) <= room:
        return shown
    keep = room - 1
    head = (keep * 2) // 3
    return f"{shown[:head]}…{shown[len(shown) - (keep - head):]}"


# --------------------------------------------------------------------------- pages
def page_view(result: dict[str, Any]) -> str:
    """A page (or several) for people: the facts on a line each, then the text read."""
    out: list[str] = []
    for page in result.get("results", [result]):
        if "error" in page:
            out.append(f"{clean_untrusted(page.get('url'))}: {error_line(page['error'])}")
            out.append("")
            continue
        for key in ("url", "title", "contentType", "publishedAt", "totalChars", "startIndex", "nextStartIndex"):
            if page.get(key) is not None:
                out.append(f"{key}: {clean_untrusted(str(page[key]))}")
        out.extend(f"note: {clean_untrusted(n)}" for n in page.get("notes") or [] if n)
        out.append("")
        out.append(clean_untrusted(page.get("content", ""), single_line=False))
        out.append("")
    return "\n".join(out).rstrip("\n")
