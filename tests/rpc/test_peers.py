"""The caller's network address: the direct peer, or what a trusted proxy forwards."""

from __future__ import annotations

import pytest

from services.rpc import TrustedProxies

NOBODY = TrustedProxies()
PROXIES = TrustedProxies.parse("10.0.0.0/8, 192.0.2.1 ,2001:db8:ffff::/48")


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:203.0.113.7:51234", "203.0.113.7"),
        ("ipv6:[2001:db8::1]:443", "2001:db8::1"),
        ("ipv6:[::ffff:203.0.113.7]:443", "203.0.113.7"),  # an IPv4 client on a dual stack
        ("ipv6:[fe80::1%25eth0]:443", "fe80::1%eth0"),
        ("unix:/run/verrater.sock", "unix"),
        ("", "unknown"),
    ],
)
def test_the_direct_peer_is_the_address_without_its_port(peer: str, address: str) -> None:
    assert NOBODY.client_address(peer, ()) == address


def test_a_forwarded_address_counts_only_from_a_trusted_proxy() -> None:
    forwarded = (("x-forwarded-for", "198.51.100.9"),)
    assert NOBODY.client_address("ipv4:10.1.2.3:5000", forwarded) == "10.1.2.3"
    assert PROXIES.client_address("ipv4:203.0.113.7:5000", forwarded) == "203.0.113.7"
    assert PROXIES.client_address("ipv4:10.1.2.3:5000", forwarded) == "198.51.100.9"
    assert PROXIES.client_address("ipv6:[2001:db8:ffff::2]:5000", forwarded) == "198.51.100.9"
    assert PROXIES.client_address("ipv4:10.1.2.3:5000", ()) == "10.1.2.3"


def test_the_client_is_the_rightmost_hop_that_is_not_a_trusted_proxy() -> None:
    # The client wrote the first entry itself: only what trusted proxies appended is believed.
    chain = (("x-forwarded-for", "1.1.1.1, 198.51.100.9, 192.0.2.1"),)
    assert PROXIES.client_address("ipv4:10.0.0.5:1", chain) == "198.51.100.9"
    headers = (("x-forwarded-for", "1.1.1.1"), ("x-forwarded-for", "198.51.100.9,10.9.9.9"))
    assert PROXIES.client_address("ipv4:10.0.0.5:1", headers) == "198.51.100.9"
    unreadable = (("x-forwarded-for", "1.1.1.1, not-an-address, 10.9.9.9"),)
    assert PROXIES.client_address("ipv4:10.0.0.5:1", unreadable) == "10.9.9.9"
    only_proxies = (("x-forwarded-for", "10.1.1.1, 10.2.2.2"),)
    assert PROXIES.client_address("ipv4:10.0.0.5:1", only_proxies) == "10.1.1.1"
    assert PROXIES.client_address("ipv4:10.0.0.5:1", (("x-forwarded-for", b"::ffff:1.2.3.4"),)) == (
        "1.2.3.4"
    )


def test_a_trusted_proxy_that_is_not_an_address_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="VERRATER_TRUSTED_PROXIES"):
        TrustedProxies.parse("10.0.0.0/8,proxy.internal")
    assert TrustedProxies.parse("") == NOBODY


def test_the_embedded_web_doors_socket_forwards_the_browsers_address() -> None:
    """`verrater serve` listens on a private Unix socket for its web door, and believes the
    address the door appends; a Unix socket peer is believed only where that is configured."""
    door = TrustedProxies(unix_sockets=True)
    browser = (("x-forwarded-for", "203.0.113.50, 198.51.100.9"),)
    assert door.client_address("unix:", browser) == "198.51.100.9"
    assert door.client_address("unix:", ()) == "unix"
    assert NOBODY.client_address("unix:", browser) == "unix"
    assert door.client_address("ipv4:10.1.2.3:5000", browser) == "10.1.2.3"
