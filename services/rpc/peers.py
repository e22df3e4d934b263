"""The caller's network address, for the limits that count per peer (guests, sign-ins, tables).

gRPC names the direct peer (`context.peer()`: ``ipv4:203.0.113.7:51234``,
``ipv6:[2001:db8::1]:443``, ``unix:/run/x.sock``). Behind a proxy that peer is the proxy, and the
client is in the `x-forwarded-for` metadata; but any client can send that header, so it is
believed only when the direct peer is a configured trusted proxy, and only as far as the chain of
hops stays trusted: read from the right, the first address that is not a trusted proxy is the
client.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:  # the interceptor imports this module
    from .interceptor import Context

FORWARDED_KEY = "x-forwarded-for"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_address(text: str) -> Address | None:
    """An IP address (an IPv4-mapped IPv6 address as its IPv4 one), None when `text` is none."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def direct_peer(peer: str) -> tuple[str, Address | None]:
    """gRPC's peer string as (what to call it, its IP address when it has one)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        host = rest.rpartition(":")[0]
    elif kind == "ipv6":
        host = unquote(rest.rpartition(":")[0]).removeprefix("[").removesuffix("]")
    else:
        return kind or "unknown", None  # a unix socket: every caller on it is one peer
    address = parse_address(host)
    return (str(address), address) if address is not None else (host or "unknown", None)


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The proxies whose `x-forwarded-for` is believed (none by default)."""

    networks: tuple[Network, ...] = ()
    #: Whether a caller on a Unix socket is a trusted proxy: only the embedded web door's
    #: private socket (services/bootstrap.py) makes the server listen on one.
    unix_sockets: bool = False

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """From `VERRATER_TRUSTED_PROXIES`: comma-separated IP addresses or CIDR blocks."""
        networks: list[Network] = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError as error:
                raise ValueError(
                    f"VERRATER_TRUSTED_PROXIES: {item!r} is not an IP address or CIDR block"
                ) from error
        return cls(tuple(networks))

    def trusts(self, address: Address) -> bool:
        return any(address in network for network in self.networks)

    def client_address(self, peer: str, metadata: Iterable[tuple[str, Any]]) -> str:
        """The client's address: the direct peer, or the forwarded one a trusted proxy gives."""
        name, address = direct_peer(peer)
        if address is None:
            if not (self.unix_sockets and name == "unix"):
                return name
        elif not self.trusts(address):
            return name
        hops: list[str] = []
        for key, value in metadata:
            if key == FORWARDED_KEY:  # several headers read as one list, in order
                text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
                hops.extend(text.split(","))
        for hop in reversed(hops):
            forwarded = parse_address(hop)
            if forwarded is None:
                break  # a hop we cannot read: believe nothing further left of it
            name = str(forwarded)
            if not self.trusts(forwarded):
                break
        return name


def peer_address(context: Context, proxies: TrustedProxies) -> str:
    """The calling client's network address (no port) for this call's `context`."""
    return proxies.client_address(context.peer(), context.invocation_metadata() or ())
