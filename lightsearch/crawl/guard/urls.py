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
from urllib.parse import urlsplit

from lightsearch.crawl.guard import BlockedAddress, InvalidURL
from lightsearch.crawl.guard.addresses import IPAddress, classify

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
DEFAULT_ALLOWED_PORTS = (80, 443, 8080, 8443)

# Names that only ever mean "this machine" or "this cloud/network"; a defence in depth
# in front of the address check, which would refuse what they resolve to anyway.
BLOCKED_NAMES = frozenset({
    "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback",
    "metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal",
})
BLOCKED_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".lan")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")


@dataclass(frozen=True)
class Target:
    """Where a checked URL points: scheme, lower-case host (no trailing dot), port, and
    the IP address when the host is an address in any notation."""

    scheme: str
    host: str
    port: int
    address: IPAddress | None = None


def _number(part: str) -> int | None:
    """One WHATWG IPv4 part: decimal, ``0x`` hex or leading-zero octal; None if invalid."""
    if part[:2].lower() == "0x":
        digits = part[2:]
        if not digits:
            return 0
        return int(digits, 16) if re.fullmatch(r"[0-9a-fA-F]+", digits) else None
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8) if re.fullmatch(r"[0-7]+", part) else None
    return int(part) if part.isdigit() else None


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host means under WHATWG/inet_aton rules, None if it is a name.

    Raises InvalidURL for hosts that end in a number but are no valid address
    (``1.2.3.4.5``, ``256.1.1.1``), as browsers do.
    """
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    last = parts[-1]
    if not (last.isdigit() or re.fullmatch(r"0[xX][0-9a-fA-F]*", last)):
        return None
    if len(parts) > 4:
        raise InvalidURL(f"host {host!r} is not a valid IPv4 address", reason="bad-ipv4")
    numbers = [_number(p) if p else None for p in parts]
    if any(n is None for n in numbers):
        raise InvalidURL(f"host {host!r} is not a valid IPv4 address", reason="bad-ipv4")
    *head, tail = numbers
    if any(n > 255 for n in head) or tail >= 256 ** (5 - len(numbers)):  # type: ignore[operator]
        raise InvalidURL(f"host {host!r} is out of the IPv4 range", reason="bad-ipv4")
    value = tail
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))  # type: ignore[operator]
    return ipaddress.IPv4Address(value)


def check_url(
    url: str,
    *,
    allowed_ports: Collection[int] = DEFAULT_ALLOWED_PORTS,
    trusted_hosts: Collection[str] = (),
) -> Target:
    """Validate an already-normalised URL; raise InvalidURL or BlockedAddress, else the Target.

    ``trusted_hosts`` are the configuration-only ``LIGHT_HOST_MAP`` names: they skip the
    name and address policy (they are connected to loopback on purpose), nothing else.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"malformed URL: {exc}", reason="malformed", url=url) from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise InvalidURL(f"only http and https URLs are fetched, not {scheme or 'no scheme'!r}",
                         reason="scheme", url=url)
    netloc = parts.netloc
    if "@" in netloc or parts.username is not None or parts.password is not None:
        raise InvalidURL("URLs with credentials (userinfo) are not fetched", reason="userinfo", url=url)
    raw_host = parts.hostname or ""
    if not raw_host:
        raise InvalidURL("the URL has no host", reason="no-host", url=url)
    if "%" in raw_host:
        raise InvalidURL("zone IDs and percent-escapes are not allowed in hosts",
                         reason="zone-id", url=url)
    if port is None:
        port = DEFAULT_PORTS[scheme]
    elif port not in allowed_ports:
        raise InvalidURL(f"port {port} is not allowed", reason="port", url=url)
    host = raw_host.lower().rstrip(".") if raw_host.endswith(".") else raw_host.lower()
    if not host:
        raise InvalidURL("the URL has no host", reason="no-host", url=url)
    address: IPAddress | None = None
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            raise InvalidURL(f"host {host!r} is not a valid IPv6 address", reason="bad-ipv6",
                             url=url) from None
    else:
        try:
            address = parse_ipv4_host(host)
        except InvalidURL as exc:
            exc.url = url
            raise
    if address is not None:
        reason = classify(address)
        if reason is not None:
            raise BlockedAddress(f"{address} is not a public address ({reason})", reason=reason,
                                 url=url, address=str(address))
        return Target(scheme, host, port, address)
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise InvalidURL(f"host {host!r} is not a valid host name", reason="bad-host", url=url)
    if host in trusted_hosts:
        return Target(scheme, host, port)
    if host in BLOCKED_NAMES or host.endswith(BLOCKED_SUFFIXES) or len(labels) < 2:
        raise BlockedAddress(f"host {host!r} names a local or internal service",
                             reason="internal-name", url=url)
    return Target(scheme, host, port)
