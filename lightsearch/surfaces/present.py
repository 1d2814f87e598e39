"""What the commands print, and their exit status: the one renderer of both command lines
(``scrapy search|news|read`` and ``lightsearch search|news|fetch|sources``).

A person's output and a model's output are two renderings of one result, printed as it
came from the front door, never rewritten:

- ``-o table`` (the default; ``lightsearch fetch`` and ``scrapy read`` included) is for
  people: per hit its title, source, date, URL and a snippet, then the notes, the stop
  reason in words and one summary line; a page as its facts and its plain text (no
  fences). URLs are whole when stdout is not a terminal (a pipe, a file); on a terminal a
  URL too long for the line is shortened in its middle. Settings are named only with
  ``--verbose``;
- ``-o text`` is what a model reads: the bounded, fenced ``text`` the renderer wrote;
- ``-o json`` is the whole result (``text`` and the page's plain ``content`` both), ``-o
  jsonl`` one hit (or page) a line.

Everything a page or a site supplied is printed through
:func:`~lightsearch.surfaces.terminal.terminal_text`, so no escape sequence, control
character or bidi override reaches the terminal.

Exit statuses (:mod:`lightsearch.surfaces.exits`): 0 an answer (zero hits from a healthy
search included); 1 a failure: an error, a search no engine answered (its error in
plain words: "no network" when nothing could be reached), a read of several pages where
one failed; 2 a value the command could not take (``invalid_*``). A failure is one
``ERROR: code: message`` line on stderr, or ``{"error": {...}}`` on stdout with ``-o
json``/``jsonl``.
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from collections import Counter
from typing import Any, TextIO

from lightsearch.evidence.render import error_line
from lightsearch.surfaces.exits import FAILED, JSON_OUTPUTS, OK, status_of
from lightsearch.surfaces.terminal import terminal_json, terminal_text

# What a stop reason means, for people; with --verbose the setting that bounds it too.
STOP_WORDS = {
    "completed": ("completed: every source planned was read", None),
    "page_hops": ("read as many pages as it may", "LIGHT_MAX_PAGE_HOPS"),
    "hops": ("spent its request budget", "LIGHT_MAX_HOPS"),
    "soft_deadline": ("stopped starting requests at its time limit", "LIGHT_SOFT_DEADLINE_SECS"),
    "deadline": ("stopped at its hard deadline", "LIGHT_DEADLINE_SECS"),
    "encoded_bytes": ("spent its download budget", "LIGHT_MAX_ENCODED_BYTES"),
    "decoded_bytes": ("spent its decoded-bytes budget", "LIGHT_MAX_DECODED_BYTES"),
    "candidates": ("kept only its best candidate pages", "LIGHT_DISCOVERY_MAX_CANDIDATES"),
    "all_engines_failed": ("every engine failed", None),
    "cached": ("answered from the cache", None),
}
# How much of each hit the model text shows (meta.webSources' presentation), for people.
SHOWN_WORDS = {"content": ("with page text", "with page text"), "snippet": ("as a snippet", "as snippets"),
               "reference": ("by title and URL only", "by title and URL only"),
               "omitted": ("left out", "left out")}
# A search answered by nothing: every engine or every source failed.
FAILED_STOPS = ("all_engines_failed",)
# Failures that mean the network itself could not be reached: a site's (Light's sources),
# and an engine's by its reason (a refused endpoint or a TLS failure is not one).
NETWORK_CODES = frozenset({"network_error", "robots_unreachable"})
NETWORK_REASONS = {"dns": "DNS lookup failed", "connect": "could not connect", "connection": "the connection failed",
                   "unreachable": "none of its sites could be reached"}
SNIPPET_LINES = 2
# A setting named in parentheses at the end of a sentence: "... (LIGHT_MAX_HOPS)".
_SETTING = re.compile(r"\s*\((?:LIGHT|WEB|RESULT|BRAVE|FLEET)_[A-Z0-9_]+\)")


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def stop_in_words(reason: Any, *, verbose: bool = False) -> str:
    words, setting = STOP_WORDS.get(str(reason), (terminal_text(reason), None))
    return f"{words} ({setting})" if verbose and setting else words


def note_in_words(note: Any, *, verbose: bool = False) -> str:
    text = terminal_text(note)
    return text if verbose else _SETTING.sub("", text)


# --------------------------------------------------------------------------- failures
def search_failure(result: dict[str, Any]) -> dict[str, Any] | None:
    """The error of a search that no engine answered (``provider: none``), in the shape
    of every error, said plainly: "no network" when every failure was one of reaching
    the network. None for an answer (zero hits from a healthy search included)."""
    if result.get("provider") != "none" and result.get("stopReason") not in FAILED_STOPS:
        return None
    engines = (result.get("meta") or {}).get("engines") or {}
    failures = {str(name): entry.get("error") or {} for name, entry in engines.items()
                if isinstance(entry, dict) and entry.get("status") == "failed"}
    why = "; ".join(f"{name}: {_why(name, err)}" for name, err in failures.items())
    if failures and all(_network(err) for err in failures.values()):
        code = "provider_network_error"
        message = "no network: no search engine could be reached"
    else:
        codes = [str(err.get("code") or "") for err in failures.values()]
        code = codes[0] if codes and all(c == codes[0] for c in codes) and codes[0] else "provider_unavailable"
        message = "no search engine answered"
    if not failures:
        notes = [terminal_text(n) for n in result.get("notes") or [] if n]
        why = "; ".join(notes[:3]) or stop_in_words(result.get("stopReason"))
    return {"code": code, "message": f"{message} ({why})" if why else message,
            "details": {"stopReason": result.get("stopReason"), "engines": failures}}


def _network(error: dict[str, Any]) -> bool:
    return error.get("code") in ("provider_network_error", "provider_unavailable") and \
        error.get("reason") in NETWORK_REASONS


def _why(name: str, error: dict[str, Any], limit: int = 70) -> str:
    """One engine's failure in a few words: its network reason, or its message (without
    the engine's name it starts with), cut."""
    if _network(error):
        return NETWORK_REASONS[error["reason"]]
    text = terminal_text(error.get("message")).removeprefix(f"{name}: ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain_error(error: dict[str, Any]) -> dict[str, Any]:
    """An error as people read it: a search whose every source failed to be reached says
    "no network" first (the code and details are the result's)."""
    errors = (error.get("details") or {}).get("sourceErrors") or []
    if error.get("code") == "web_search_sources_unavailable" and errors and \
            all(isinstance(e, dict) and e.get("code") in NETWORK_CODES for e in errors):
        sites = len({e.get("source") for e in errors})
        return {**error, "message": f"no network: none of the {plural(sites, 'source')} it tried could be "
                                    f"reached ({error.get('message')})"}
    return error


def failed_pages(result: dict[str, Any]) -> dict[str, Any] | None:
    """The error of a read of several pages of which some failed (the others are shown)."""
    if not result.get("failed"):
        return None
    errors = [p["error"] for p in result.get("results", []) if isinstance(p, dict) and "error" in p]
    first = errors[0] if errors else {}
    return {"code": first.get("code") or "extraction_failed",
            "message": f"{result['failed']} of {result.get('count', '?')} pages could not be read"
                       + (f" (first: {first.get('message')})" if first.get("message") else ""),
            "details": {"failed": result["failed"]}}


def print_error(error: dict[str, Any], output: str, out: TextIO, err: TextIO) -> None:
    """An error: JSON on stdout for ``-o json``/``jsonl``; the model's one line on stdout
    for ``-o text`` (what a model would read); else one ``ERROR:`` line on stderr."""
    if output in JSON_OUTPUTS:
        print(terminal_json({"error": error}, indent=2 if output == "json" else None), file=out)
    else:
        print(error_line(error), file=out if output == "text" else err)


# --------------------------------------------------------------------------- results
def show(command: str, result: dict[str, Any], output: str, *, wall_secs: float | None = None,
         verbose: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print ``result`` of ``command`` (search, news or fetch) as ``output``; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    if "error" in result:
        error = plain_error(result["error"])
        print_error(error, output, out, err)
        return status_of(str(error.get("code") or ""))
    failure = search_failure(result) if command in ("search", "news") else None
    if failure is not None:
        if output == "text":
            print(result.get("text", ""), file=out)
            print(error_line(failure), file=err)
        else:
            print_error(failure, output, out, err)
            if verbose and output not in JSON_OUTPUTS:
                for note in result.get("notes") or []:
                    print(f"note: {note_in_words(note, verbose=True)}", file=err)
        return FAILED
    if output == "json":
        print(terminal_json(result), file=out)
    elif output == "jsonl":
        rows = result.get("hits", []) if command in ("search", "news") else result.get("results", [result])
        for row in rows:
            print(terminal_json(row, indent=None), file=out)
    elif output == "text":
        print(result.get("text", ""), file=out)
    elif command in ("search", "news"):
        print(hit_list(result, wall_secs=wall_secs, verbose=verbose, whole_urls=not _is_terminal(out)), file=out)
    else:
        print(page_view(result, verbose=verbose), file=out)
    partial = failed_pages(result) if command == "fetch" else None
    if partial is not None:
        print(error_line(partial), file=err)
        return FAILED
    return OK


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# --------------------------------------------------------------------------- searches
def hit_list(result: dict[str, Any], *, wall_secs: float | None = None, width: int | None = None,
             verbose: bool = False, whole_urls: bool = False) -> str:
    """Hits for people: title, then source, date and URL, then a snippet; notes, the stop
    reason in words and a summary line. ``whole_urls``: never shorten a URL (the output is
    not a terminal, where a cut URL could not be followed)."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    hits = [h for h in result.get("hits") or [] if isinstance(h, dict)]
    lines: list[str] = []
    if not hits:
        lines.append(f"No results for {terminal_text(result.get('query'))!r}.")
    for i, hit in enumerate(hits, 1):
        lines.append(f"{i:>2}. {terminal_text(hit.get('title'))}")
        date = terminal_text(hit.get("publishedAt") or hit.get("modifiedAt") or "")[:10] or "-"
        source = terminal_text(hit.get("sourceName") or hit.get("source") or "-")
        engines = f" · {'+'.join(map(terminal_text, hit['engines']))}" if hit.get("engines") else ""
        head = f"    {source} · {date}{engines} · "
        url = terminal_text(hit.get("url"))
        lines.append(head + (url if whole_urls else short_url(url, max(20, width - len(head)))))
        snippet = terminal_text(hit.get("snippet") or "")
        if snippet:
            wrapped = textwrap.wrap(snippet, width=max(40, width - 4), initial_indent="    ",
                                    subsequent_indent="    ", max_lines=SNIPPET_LINES, placeholder=" …")
            lines.extend(wrapped)
        lines.append("")
    lines.extend(f"note: {note_in_words(n, verbose=verbose)}" for n in result.get("notes") or [] if n)
    lines.append(f"stop: {stop_in_words(result.get('stopReason'), verbose=verbose)}")
    lines.append(summary(result, hits, wall_secs))
    return "\n".join(lines)


def summary(result: dict[str, Any], hits: list[dict[str, Any]], wall_secs: float | None) -> str:
    meta = result.get("meta") or {}
    light = meta.get("lightSearch") or {}
    wall = light.get("elapsedMs", 0) / 1000 if wall_secs is None else wall_secs
    parts = [plural(len(hits), "hit")]
    if light:
        counts = light.get("counts") or {}
        consulted = [terminal_text(s) for s in (light.get("sources") or {}).get("consulted") or []]
        selected = (light.get("sources") or {}).get("selected") or []
        parts += [f"sources consulted {len(consulted)}/{len(selected)} ({', '.join(consulted) or 'none'})",
                  f"hops {counts.get('requests', 0)}",
                  f"{counts.get('encodedBytes', 0) / 1024:.0f} KiB encoded, "
                  f"{counts.get('decodedBytes', 0) / 1024:.0f} KiB decoded"]
    else:
        parts.append(f"provider {terminal_text(result.get('provider'))}" + (" (cached)" if result.get("cached") else ""))
    parts += [f"{wall:.2f} s", f"coverage {terminal_text((result.get('coverage') or {}).get('level'))}"]
    receipts = meta.get("webSources")
    if receipts and hits:
        tally = Counter(str(e.get("presentation")) for e in receipts.get("entries", []) if isinstance(e, dict))
        shown = [f"{n} {SHOWN_WORDS[k][0 if n == 1 else 1]}" for k, n in tally.items() if n and k in SHOWN_WORDS]
        if shown:
            parts.append("shown to a model: " + ", ".join(shown))
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
PAGE_FACTS = (("url", "url"), ("title", "title"), ("contentType", "type"), ("publishedAt", "published"),
              ("totalChars", "characters"), ("startIndex", "from"), ("nextStartIndex", "read on from"))


def page_view(result: dict[str, Any], *, verbose: bool = False) -> str:
    """A page (or several) for people: the facts on a line each, then its plain text (the
    page's ``content``, never the fenced model text)."""
    out: list[str] = []
    for page in result.get("results", [result]):
        if not isinstance(page, dict):
            continue
        if "error" in page:
            out.append(f"{terminal_text(page.get('url'))}: {error_line(page['error'])}")
            out.append("")
            continue
        for key, label in PAGE_FACTS:
            if page.get(key) is not None:
                out.append(f"{label}: {terminal_text(str(page[key]))}")
        out.extend(f"note: {note_in_words(n, verbose=verbose)}" for n in page.get("notes") or [] if n)
        out.append("")
        out.append(terminal_text(page.get("content", ""), lines=True))
        out.append("")
    return "\n".join(out).rstrip("\n")


# --------------------------------------------------------------------------- sources
def show_sources(action: str, result: dict[str, Any], output: str, *, out: TextIO | None = None) -> int:
    """``lightsearch sources ...``: the user catalog for people (``-o json``: as stored,
    which is clean too)."""
    out = out or sys.stdout
    if output == "json":
        print(terminal_json(result), file=out)
    else:
        print(sources_text(action, result), file=out)
    failing = action == "check" and any(r.get("status") == "failing" for r in result.get("sources", []))
    return FAILED if failing else OK


def sources_text(action: str, result: dict[str, Any]) -> str:
    t = terminal_text
    lines: list[str] = []
    if action == "add":
        entry = result["added"]
        private = " on your own machine or network" if entry.get("allowPrivate") else ""
        lines.append(f"added {t(entry['id'])} ({t(entry['name'])}, {t(entry['language'])}, {t(entry['kind'])})"
                     f"{private} to {t(result['catalog'])}")
        for key, found in (entry.get("evidence") or {}).items():
            if isinstance(found, dict):
                lines.extend(f"  {t(key)}: {t(url)}: {t(why)}" for url, why in found.items())
            else:
                lines.append(f"  {t(key)}: {t(found)}")
        lines.extend(f"  not read: {t(e.get('url'))}: {t(e.get('code'))}" for e in result.get("sourceErrors", []))
    elif action == "list":
        if not result["sources"]:
            lines.append(f"no sources in {t(result['catalog'])}")
        for entry in result["sources"]:
            seeds = entry.get("seeds") or ["-"]
            lines.append("\t".join([t(entry.get("id")), t(entry.get("name")), t(entry.get("language")),
                                    t(entry.get("kind")), t(seeds[0])]
                                   + (["private"] if entry.get("allowPrivate") else [])
                                   + [f"{plural(len(entry.get('feeds') or []), 'feed')}, "
                                      f"{plural(len(entry.get('sitemaps') or []), 'sitemap')}"]))
    elif action == "check":
        for row in result["sources"]:
            detail = row.get("message") or ", ".join(f"{k} changed" for k in row.get("changes", {}))
            lines.append(f"{t(row.get('id'))}\t{t(row.get('status'))}" + (f"\t{t(detail)}" if detail else ""))
    elif action == "remove":
        lines.append(f"removed {t(result['removed'])} from {t(result['catalog'])}")
    else:
        lines.append(f"described {plural(result['sources'], 'source')} from {plural(result['documents'], 'document')}"
                     f" into {t(result['summary'])}")
        if result.get("use"):
            lines.append(t(result["use"]))
    return "\n".join(lines)
