"""What a robots.txt says to one crawler, bounded: the group of rules that binds it and
the sitemaps the file names, written again as a small robots.txt of their own.

A robots.txt may be 500 KiB (RFC 9309's parse limit), and protego parses every group of
it, holds every rule (wildcard rules are the heaviest) and tries them on every
``can_fetch``: tens of thousands of them cost seconds and tens of MiB
(docs/UNTRUSTED_WORK.md). Only one group ever binds a crawler (the one whose product
token matches its name best, else ``*``), so the file is read once, line by line, and
only that group's rules are kept, with the sitemaps: the digest's ``text`` is what protego
parses and the robots cache holds. A group of more than :data:`MAX_RULES` rules, or a
digest over :data:`MAX_TEXT_BYTES`, is ``over`` its bounds: the file is then not applied
in part but blocks the origin, as a file over the size limit does.

The lines are read as protego 0.7 reads them (comments, the directive names and their
misspellings, a group ending at the first user-agent line after a rule, rules without a
group ignored, a ``*`` in a product token dropped), so the digest's verdicts are
protego's verdicts on the whole file for that crawler (tests/documents/test_robots_digest.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_RULES = 500  # rule lines of the group that binds us (the largest real group seen: 418)
MAX_TEXT_BYTES = 64 * 1024
MAX_SITEMAPS = 64  # sitemaps kept, in the file's order (discovery considers as many)

_DISALLOW = frozenset({"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})
_ALLOW = frozenset({"allow"})
_USER_AGENT = frozenset({"user-agent", "useragent", "user agent"})
_SITEMAP = frozenset({"sitemap", "sitemaps", "site-map"})
_CRAWL_DELAY = frozenset({"crawl-delay", "crawl delay"})
_REQUEST_RATE = frozenset({"request-rate", "request rate"})
_VISIT_TIME = frozenset({"visit-time", "visit time"})
_HOST = frozenset({"host"})
_SITE_WIDE = _SITEMAP | _HOST
_KNOWN = _DISALLOW | _ALLOW | _USER_AGENT | _SITEMAP | _CRAWL_DELAY | _REQUEST_RATE | _VISIT_TIME | _HOST
_MAX_DIRECTIVE_WORDS = 2
# A rule kept, as it is written back: one spelling per kind.
_WRITTEN = {**dict.fromkeys(_DISALLOW, "Disallow"), "allow": "Allow", **dict.fromkeys(_CRAWL_DELAY, "Crawl-delay"),
            **dict.fromkeys(_REQUEST_RATE, "Request-rate"), **dict.fromkeys(_VISIT_TIME, "Visit-time")}


@dataclass(frozen=True)
class RobotsDigest:
    """``text``: a robots.txt of the group that binds ``agent`` and the sitemaps; ``rules``:
    how many rule lines the group has; ``over``: why the file cannot be applied within the
    bounds ("" when it can); ``lines``: lines read."""

    text: str
    agent: str
    rules: int = 0
    sitemaps: tuple[str, ...] = field(default=())
    over: str = ""
    lines: int = 0


def _directive(line: str) -> tuple[str, str] | None:
    """A non-empty line as (lower-cased field, stripped value), or None; as generous as
    protego ("User agent foo", a known field without its colon), and a ``field: value``
    line of an unknown field is still a field (it ends nothing, it binds nothing)."""
    name: str | None = None
    value = ""
    if ":" in line:
        name, raw = line.split(":", 1)
        name = name.strip().lower()
        value = raw.strip()
        if name in _KNOWN or not raw or raw[0].isspace():
            return name, value
    words = line.split()
    for count in range(1, _MAX_DIRECTIVE_WORDS + 1):
        candidate = " ".join(words[:count]).lower()
        if candidate in _KNOWN:
            return candidate, " ".join(words[count:])
    return None if name is None else (name, value)


def _score(token: str, robotname: str) -> int:
    """How well a group's product token names the crawler (protego's rule): ``*`` is 1, a
    token found in the name at a word boundary its length, anything else 0."""
    if token == "*":
        return 1
    index = robotname.find(token)
    while index != -1:
        if index == 0 or not (robotname[index - 1].isalnum() or robotname[index - 1] in "-_"):
            return len(token)
        index = robotname.find(token, index + 1)
    return 0


def digest_robots(body: bytes | str, agent: str) -> RobotsDigest:
    """The digest of a complete robots.txt body for the crawler named ``agent`` (RFC 9309:
    UTF-8, a byte-order mark ignored)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text.lstrip("\ufeff")
    robotname = agent.strip().lower()
    groups: list[list[tuple[str, str]]] = []  # each record group's rules, in order
    member_of: dict[str, list[int]] = {}  # product token -> the groups naming it, in order
    current: list[int] = []  # the groups the lines now apply to (one, or none)
    previous: str | None = None
    sitemaps: list[str] = []
    lines = 0
    for line in text.splitlines():
        lines += 1
        hash_pos = line.find("#")
        if hash_pos != -1:
            line = line[:hash_pos]
        line = line.strip()
        if not line:
            continue
        parsed = _directive(line)
        if parsed is None:
            continue
        name, value = parsed
        if name in _USER_AGENT and previous is not None and previous not in _USER_AGENT:
            current = []
        if name not in _SITE_WIDE:
            previous = name
        if not value:
            continue
        if name in _USER_AGENT:
            if not current:
                groups.append([])
                current = [len(groups) - 1]
            token = value.strip().lower()
            for name_of in (token, token.replace("*", "") if token != "*" and "*" in token else None):
                if name_of:
                    joined = member_of.setdefault(name_of, [])
                    if not joined or joined[-1] != current[0]:
                        joined.append(current[0])
        elif name in _SITEMAP:
            if len(sitemaps) < MAX_SITEMAPS:
                sitemaps.append(value)
        elif name in _WRITTEN and current:
            groups[current[0]].append((_WRITTEN[name], value))
    best, matched = 0, None
    for token in member_of:  # the first of the best, in the order the file names them
        score = _score(token, robotname)
        if score > best:
            best, matched = score, token
    rules = [rule for index in member_of.get(matched, ()) for rule in groups[index]] if matched else []
    out = [f"User-agent: {matched}"] if matched else []
    out += [f"{kind}: {value}" for kind, value in rules]
    out += [f"Sitemap: {url}" for url in sitemaps]
    written = "\n".join(out) + "\n" if out else ""
    over = ""
    if len(rules) > MAX_RULES:
        over = f"more than {MAX_RULES} rules apply to {robotname}"
    elif len(written.encode("utf-8")) > MAX_TEXT_BYTES:
        over = f"the rules that apply to {robotname} are longer than {MAX_TEXT_BYTES // 1024} KiB"
    return RobotsDigest(text="" if over else written, agent=robotname, rules=len(rules),
                        sitemaps=tuple(sitemaps), over=over, lines=lines)


def parsed_bytes(text: str) -> int:
    """An upper bound of what protego holds for a digest's ``text``, in bytes (the robots
    cache weighs its entries by it): per rule a fixed cost, its value quoted and kept twice,
    twice over for a rule protego doubles (a ``$``, an ``index.html``), and the parts of a
    wildcard pattern; per sitemap its URL; and the parser's own tables."""
    total = 4096 + len(text)
    for line in text.splitlines():
        kind, _, value = line.partition(": ")
        if kind == "Sitemap":
            total += 100 + len(value)
            continue
        size = len(value.encode("utf-8", "replace"))
        cost = 500 + 4 * size
        if "*" in value:
            cost += 480 + 16 * value.count("*")
        if "$" in value or value.endswith("index.html"):
            cost *= 2
        total += cost
    return total
