"""Check a URL the way it will actually be requested, before any connection.

Parsers disagree (reliability.md §0.4: ``http://evil.com\\@good.com/`` is good.com to
``urllib`` and evil.com to w3lib/WHATWG, which Scrapy uses), so these checks run on the
URL *after* ``scrapy.Request`` normalised it through ``w3lib.url.safe_url_string``, never
on the raw input. Hosts that WHATWG and ``getaddrinfo`` read as IPv4 addresses
(``127.1``, ``0x7f.1``, ``2130706433``, ``0177.0.0.1``...) are decoded here and judged as
the address they are, instead of being sent to DNS as if they were names.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from lightsearch.crawl.guard import BlockedAddress, InvalidURL
from lightsearch.crawl.guard.addresses import IPAddress, classify
from lightsearch.crawl.guard.private import lifts
from lightsearch.errors import quote_untrusted
from lightsearch.plan.catalog import origin_of

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
DEFAULT_ALLOWED_PORTS = (80, 443, 8080, 8443)

# Names that only ever mean "this machine" or "this cloud/network"; a defence in depth
# in front of the address check, which would refuse what they resolve to anyway.
METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"})
BLOCKED_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", *METADATA_NAMES})
BLOCKED_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".lan")
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
# IPv4 parts in ASCII only: ``str.isdigit()`` is also true for "①" or "٣", which
# ``int()`` then refuses.
_DECIMAL = re.compile(r"[0-9]+")
_OCTAL = re.compile(r"[0-7]+")
_HEX = re.compile(r"[0-9a-fA-F]+")
_HEX_TAIL = re.compile(r"0[xX][0-9a-fA-F]*")
# More significant digits than any 32-bit value has; such a part is out of range, and
# is never given to ``int()``, which refuses decimal strings over 4,300 digits.
_MAX_DIGITS = {10: 10, 8: 11, 16: 8}
_TOO_BIG = 1 << 32


@dataclass(frozen=True)
class Target:
    """Where a checked URL points: scheme, lower-case host (no trailing dot), port, and
    the IP address when the host is an address in any notation."""

    scheme: str
    host: str
    port: int
    address: IPAddress | None = None
    #: On an origin a user added with ``--allow-private`` (crawl/guard/private.py): the
    #: addresses it resolves to may be private too.
    private: bool = False


def _number(part: str) -> int | None:
    """One WHATWG IPv4 part: decimal, ``0x`` hex or leading-zero octal; None if invalid.

    A part too long for 32 bits reads as ``2**32`` (out of range), whatever its length.
    """
    if part[:2].lower() == "0x":
        digits, base, pattern = part[2:], 16, _HEX
        if not digits:
            return 0
    elif len(part) > 1 and part.startswith("0"):
        digits, base, pattern = part, 8, _OCTAL
    else:
        digits, base, pattern = part, 10, _DECIMAL
    if not pattern.fullmatch(digits):
        return None
    if len(digits.lstrip("0")) > _MAX_DIGITS[base]:
        return _TOO_BIG
    return int(digits, base)


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host means under WHATWG/inet_aton rules, None if it is a name.

    Raises InvalidURL for hosts that end in a number but are no valid address
    (``1.2.3.4.5``, ``256.1.1.1``), as browsers do.
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    last = parts[-1]
    if not (_DECIMAL.fullmatch(last) or _HEX_TAIL.fullmatch(last)):
        return None
    if len(parts) > 4:
        raise InvalidURL(f"host {quote_untrusted(host)} is not a valid IPv4 address", reason="bad-ipv4")
    numbers = [_number(p) if p else None for p in parts]
    if any(n is None for n in numbers):
        raise InvalidURL(f"host {quote_untrusted(host)} is not a valid IPv4 address", reason="bad-ipv4")
    *head, tail = numbers
    if any(n > 255 for n in head) or tail >= 256 ** (5 - len(numbers)):  # type: ignore[operator]
        raise InvalidURL(f"host {quote_untrusted(host)} is out of the IPv4 range", reason="bad-ipv4")
    value = tail
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))  # type: ignore[operator]
    return ipaddress.IPv4Address(value)


def check_url(
    url: str,
    *,
    allowed_ports: Collection[int] = DEFAULT_ALLOWED_PORTS,
    trusted_hosts: Collection[str] = (),
    private_origins: Collection[str] = (),
) -> Target:
    """Validate an already-normalised URL; raise InvalidURL or BlockedAddress, else the Target.

    ``trusted_hosts`` are the configuration-only ``LIGHT_HOST_MAP`` names: they skip the
    name and address policy (they are connected to loopback on purpose), nothing else.
    ``private_origins`` are the origins of the sites a user added with ``--allow-private``
    (crawl/guard/private.py): on those the port rule and the refusals the opt-in lifts do
    not apply, and the Target says so for the check of the resolved addresses.
    Any string gives one of those three answers, never another exception: the URL comes
    from tool input, redirects and crawled links alike.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
        raw_host = parts.hostname or ""
    except ValueError as exc:
        raise InvalidURL(f"malformed URL ({quote_untrusted(str(exc), 60, sentence=True)})", reason="malformed",
                         url=url) from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        what = quote_untrusted(scheme) if scheme else "no scheme"
        raise InvalidURL(f"only http and https URLs are fetched, not {what}", reason="scheme", url=url)
    netloc = parts.netloc
    if "@" in netloc or parts.username is not None or parts.password is not None:
        raise InvalidURL("URLs with credentials (userinfo) are not fetched", reason="userinfo", url=url)
    if not raw_host:
        raise InvalidURL("the URL has no host", reason="no-host", url=url)
    if "%" in raw_host:
        _refuse_escaped_host(raw_host, url)
    private = bool(private_origins) and origin_of(url) in private_origins
    if port is None:
        port = DEFAULT_PORTS[scheme]
    elif port not in allowed_ports and not (private and lifts("port")):
        raise InvalidURL(f"port {port} is not allowed", reason="port", url=url)
    host = raw_host.lower().rstrip(".") if raw_host.endswith(".") else raw_host.lower()
    if not host:
        raise InvalidURL("the URL has no host", reason="no-host", url=url)
    try:
        address = _address(host)
    except InvalidURL as exc:
        exc.url = url
        raise
    if address is not None:
        reason = classify(address)
        if reason is not None and not (private and lifts(reason)):
            raise BlockedAddress(f"{address} is not a public address ({reason})", reason=reason,
                                 url=url, address=str(address))
        return Target(scheme, host, port, address, private)
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidURL(f"host {quote_untrusted(host)} is not a valid host name", reason="bad-host",
                         url=url)
    if host in trusted_hosts:
        return Target(scheme, host, port)
    internal = host in BLOCKED_NAMES or host.endswith(BLOCKED_SUFFIXES) or len(labels) < 2
    if host in METADATA_NAMES or (internal and not (private and lifts("internal-name"))):
        raise BlockedAddress(f"host {quote_untrusted(host)} names a local or internal service",
                             reason="internal-name", url=url)
    return Target(scheme, host, port, private=private)


def _address(host: str) -> IPAddress | None:
    """The IP address a lower-case host is, in any notation; None for a name."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise InvalidURL(f"host {quote_untrusted(host)} is not a valid IPv6 address",
                             reason="bad-ipv6") from None
    return parse_ipv4_host(host)


def _refuse_escaped_host(raw_host: str, url: str) -> None:
    """Refuse a host with ``%``: an IPv6 zone ID, or a percent-escaped host.

    WHATWG parsers decode ``http://%31%32%37.0.0.1/`` to 127.0.0.1 while DNS would be
    asked for the escaped name, so such a host is never fetched. When it decodes to an
    address that is not public it is reported as that address, because that is what a
    browser-like parser reads it as; any other escaped host is ``percent-encoded-host``.
    """
    if ":" in raw_host:  # only a bracketed IPv6 host has a colon here
        raise InvalidURL("IPv6 zone IDs are not allowed in hosts", reason="zone-id", url=url)
    decoded = unquote(raw_host, errors="replace").lower().rstrip(".")
    address: IPAddress | None = None
    if "%" not in decoded:
        try:
            address = _address(decoded)
        except InvalidURL:
            address = None
    reason = classify(address) if address is not None else None
    if address is not None and reason is not None:
        raise BlockedAddress(
            f"host {quote_untrusted(raw_host)} is {address} percent-encoded, not a public address "
            f"({reason})", reason=reason, url=url, address=str(address))
    raise InvalidURL(
        f"host {quote_untrusted(raw_host)} is percent-encoded (it decodes to "
        f"{quote_untrusted(decoded)}); escaped hosts are not fetched",
        reason="percent-encoded-host", url=url)
