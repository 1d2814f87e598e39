"""Is this IP address a public destination? Written from the address classes.

``ipaddress.is_global`` alone is not enough (reliability.md §0.2: multicast, 192.0.0.192,
IPv4-compatible/translated, NAT64 and 6to4 forms, fec0::/10 all pass it on Python 3.11),
so an address is public only when it is globally routable unicast by *every* test here:
the explicit special-purpose blocks below, the standard library's classes, and, for IPv6,
membership of global unicast 2000::/3. IPv6 forms that carry an IPv4 address (mapped,
compatible, translated, NAT64, 6to4, Teredo) are refused as whole prefixes, as the deny
list of reliability.md §1.2 has it; the inner address is decoded so the refusal names
what the address would have reached.
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

IPAddress = IPv4Address | IPv6Address

# Cloud metadata services: named so that refusals say what was being reached.
METADATA = {
    IPv4Address("169.254.169.254"): "metadata",  # AWS, GCP, Azure, OpenStack IMDS
    IPv4Address("169.254.170.2"): "metadata",  # AWS ECS task credentials
    IPv4Address("100.100.100.200"): "metadata",  # Alibaba Cloud
    IPv6Address("fd00:ec2::254"): "metadata",  # AWS IMDS over IPv6
}

_V4_BLOCKS: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), reason) for net, reason in (
        ("0.0.0.0/8", "this-network"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared-cgnat"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "ietf-protocol"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4-relay"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "broadcast"),
    )
)

_V6_BLOCKS: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), reason) for net, reason in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("100::/64", "discard"),
        ("2001:db8::/32", "documentation"),
        ("2001::/23", "ietf-protocol"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)

_GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")
_MAPPED = IPv6Network("::ffff:0:0/96")
_COMPATIBLE = IPv6Network("::/96")
_TRANSLATED = IPv6Network("::ffff:0:0:0/96")
_NAT64_WKP = IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = IPv6Network("64:ff9b:1::/48")
_SIX_TO_FOUR = IPv6Network("2002::/16")
_TEREDO = IPv6Network("2001::/32")


def _low32(addr: IPv6Address) -> IPv4Address:
    return IPv4Address(int(addr) & 0xFFFFFFFF)


def _rfc6052_local(addr: IPv6Address) -> IPv4Address:
    """IPv4 inside 64:ff9b:1::/48 (RFC 6052 /48 layout: bits 48-63 and 72-87, u-octet skipped)."""
    packed = addr.packed
    return IPv4Address(packed[6:8] + packed[9:11])


def embedded_ipv4(addr: IPv6Address) -> tuple[str, IPv4Address] | None:
    """The IPv4 address an IPv6 address carries, with the name of the form, or None."""
    if addr in _MAPPED:
        return "ipv4-mapped", _low32(addr)
    if addr in _TRANSLATED:
        return "ipv4-translated", _low32(addr)
    if addr in _NAT64_WKP:
        return "nat64", _low32(addr)
    if addr in _NAT64_LOCAL:
        return "nat64-local", _rfc6052_local(addr)
    if addr in _SIX_TO_FOUR:
        return "6to4", IPv4Address(addr.packed[2:6])
    if addr in _TEREDO:
        # The client address is stored inverted in the last 32 bits (RFC 4380).
        return "teredo", IPv4Address(int(addr) & 0xFFFFFFFF ^ 0xFFFFFFFF)
    if addr in _COMPATIBLE and int(addr) > 1:
        return "ipv4-compatible", _low32(addr)
    return None


def _classify_v4(addr: IPv4Address) -> str | None:
    if addr in METADATA:
        return METADATA[addr]
    for net, reason in _V4_BLOCKS:
        if addr in net:
            return reason
    if addr.is_multicast or addr.is_reserved or addr.is_loopback or addr.is_link_local:
        return "special-purpose"
    if addr.is_private or addr.is_unspecified or not addr.is_global:
        return "not-global"
    return None


def _classify_v6(addr: IPv6Address) -> str | None:
    if addr.scope_id:
        return "zone-id"
    if addr in METADATA:
        return METADATA[addr]
    inner = embedded_ipv4(addr)
    if inner is not None:
        form, v4 = inner
        verdict = _classify_v4(v4)
        # Every form is refused, naming what it carries (reliability.md §1.2 denies all
        # of these prefixes). A public site has an A record; getaddrinfo is not asked
        # for mapped answers; and NAT64, 6to4 and Teredo reach IPv4 through translators
        # and relays the guard cannot see, so even a public inner address is not vetted.
        return f"{form}:{verdict or 'public'}"
    for net, reason in _V6_BLOCKS:
        if addr in net:
            return reason
    if addr not in _GLOBAL_UNICAST_V6:
        return "not-global-unicast"
    if addr.is_multicast or addr.is_reserved or addr.is_private or not addr.is_global:
        return "not-global"
    return None


def classify(address: str | IPAddress) -> str | None:
    """Why ``address`` must not be connected to (a short reason), or None if it is public.

    Strings that are not an IP address at all are refused (``"not-an-address"``).
    """
    if isinstance(address, str):
        try:
            address = ipaddress.ip_address(address.strip("[]"))
        except ValueError:
            return "not-an-address"
    if isinstance(address, IPv4Address):
        return _classify_v4(address)
    return _classify_v6(address)


def is_public(address: str | IPAddress) -> bool:
    """True only for an address every check agrees is globally routable unicast."""
    return classify(address) is None
