"""The address classifier: every address of reliability.md's tables, the boundaries around
each block, and addresses nobody listed (random members of every special block, and
private IPv4 wrapped in every IPv6 form) to show the verdict comes from the classes."""

from __future__ import annotations

import ipaddress
import random

import pytest

from lightsearch.crawl.guard.addresses import classify, embedded_ipv4, is_public

BLOCKED = [
    # reliability.md §1.4 / §9.1 / §9.2, IPv4
    "0.0.0.0", "0.1.2.3", "10.0.0.1", "172.16.0.1", "192.168.0.1", "192.168.1.1",
    "100.64.0.1", "100.64.0.0", "100.127.255.254", "100.100.100.200", "127.0.0.1",
    "127.255.255.255", "169.254.169.254", "169.254.170.2", "192.0.0.192", "192.0.2.1",
    "192.88.99.1", "198.18.0.1", "198.51.100.7", "203.0.113.1", "224.0.0.1", "240.0.0.1",
    "255.255.255.255", "0.1.1.1",
    # IPv6
    "::", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254",
    "::ffff:192.168.2.1", "::ffff:10.0.0.1", "::127.0.0.1", "::ffff:0:7f00:1", "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", "64:ff9b::192.168.2.1", "64:ff9b:1:a00:0:100::",
    "2002:7f00:1::", "2002:a9fe:a9fe::", "2002:a00:1::1", "2002:c0a8:ffff::",
    "2001:0:4136:e378:8000:63bf:3f57:fdf2", "fd00:ec2::254", "fe80::1", "fec0::1",
    "fec0:cccc::", "ff02::1", "ff02::2", "100::1", "2001:db8::1", "fc00::1",
]
PUBLIC = [
    "93.184.215.14", "8.8.8.8", "1.1.1.1", "100.63.255.254", "100.128.0.1", "172.32.0.1",
    "192.0.1.1", "198.20.0.1", "223.255.255.254", "2606:4700:4700::1111", "2a00:1450:4001::1",
]


@pytest.mark.parametrize("address", BLOCKED)
def test_listed_special_addresses_are_refused(address):
    assert classify(address) is not None
    assert not is_public(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_unicast_is_allowed(address):
    assert classify(address) is None, classify(address)


@pytest.mark.parametrize(("address", "reason"), [
    ("169.254.169.254", "metadata"), ("100.100.100.200", "metadata"), ("fd00:ec2::254", "metadata"),
    ("100.64.0.1", "shared-cgnat"), ("::ffff:127.0.0.1", "ipv4-mapped:loopback"),
    ("64:ff9b:1:a00:0:100::", "nat64-local:private"), ("2002:7f00:1::", "6to4:loopback"),
    ("2001:0:4136:e378:8000:63bf:3f57:fdf2", "teredo:private"), ("fec0::1", "site-local"),
])
def test_refusals_name_what_was_reached(address, reason):
    assert classify(address) == reason


@pytest.mark.parametrize(("address", "inner"), [
    ("::ffff:10.0.0.1", "10.0.0.1"), ("::ffff:0:a00:1", "10.0.0.1"), ("::10.0.0.1", "10.0.0.1"),
    ("64:ff9b::a00:1", "10.0.0.1"), ("64:ff9b:1:a00:0:100::", "10.0.0.1"),
    ("2002:a00:1::", "10.0.0.1"), ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1"),
])
def test_every_ipv6_wrapping_is_unwrapped(address, inner):
    form = embedded_ipv4(ipaddress.IPv6Address(address))
    assert form is not None
    assert str(form[1]) == inner


def test_non_addresses_and_zone_ids_are_refused():
    assert classify("example.com") == "not-an-address"
    assert classify(ipaddress.IPv6Address("fe80::1%eth0")) == "zone-id"


SPECIAL_V4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
              "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
              "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4"]
SPECIAL_V6 = ["::/96", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
              "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "4000::/3", "8000::/1"]


def _sample(net: str, rng: random.Random, n: int = 40):
    network = ipaddress.ip_network(net)
    for _ in range(n):
        yield network[rng.randrange(network.num_addresses)]


@pytest.mark.parametrize("net", SPECIAL_V4 + SPECIAL_V6)
def test_unlisted_members_of_every_special_block_are_refused(net):
    rng = random.Random(net)  # fixed seed per block: failures reproduce
    for address in _sample(net, rng):
        assert classify(address) is not None, address


def test_any_non_public_ipv4_in_any_ipv6_form_is_refused():
    rng = random.Random(7)
    for net in SPECIAL_V4:
        for v4 in _sample(net, rng, 10):
            n = int(v4)
            packed = v4.packed
            forms = [
                ipaddress.IPv6Address((0xFFFF << 32) | n),  # mapped
                ipaddress.IPv6Address(n) if n > 1 else None,  # compatible
                ipaddress.IPv6Address((0xFFFF << 48) | n),  # translated
                ipaddress.IPv6Address((0x64FF9B << 96) | n),  # NAT64 well-known prefix
                ipaddress.IPv6Address(b"\x00\x64\xff\x9b\x00\x01" + packed[:2] + b"\x00"
                                      + packed[2:] + b"\x00" * 5),  # NAT64 local-use /48
                ipaddress.IPv6Address((0x2002 << 112) | (n << 80)),  # 6to4
                ipaddress.IPv6Address((0x20010000 << 96) | (n ^ 0xFFFFFFFF)),  # Teredo client
            ]
            for form in filter(None, forms):
                assert classify(form) is not None, (v4, form)


@pytest.mark.parametrize(("address", "reason"), [
    ("::ffff:8.8.8.8", "ipv4-mapped:public"), ("64:ff9b::808:808", "nat64:public"),
    ("2002:808:808::", "6to4:public"), ("::8.8.8.8", "ipv4-compatible:public"),
    ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", "teredo:public"),
])
def test_wrapped_forms_are_refused_even_around_public_addresses(address, reason):
    # The whole prefixes are on the deny list: translators and relays cannot be vetted.
    assert classify(address) == reason
