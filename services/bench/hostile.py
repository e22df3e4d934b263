"""Hostile requests for every RPC of the API (`answers.py` sends them and reads the answers).

What the fuzz suite (tests/hostile) sends with hypothesis and `verrater bench abuse` sends from
a seeded generator: raw bytes, and well-formed messages with what no honest client sends
(random field values, repeated fields filled up to the message limit, enum numbers the schema
does not have, other players' ids, other seats' tokens, expired, forged and unsigned tokens).
Every choice is made through a :class:`Draw`, so one generator serves both: hypothesis shrinks
a failing example choice by choice, and the benchmark replays a seed. The RPCs and their fields
are read from the generated descriptors: a new RPC or field is fuzzed as soon as it exists.
"""

from __future__ import annotations

import base64
import importlib
import json
import math
import pkgutil
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

import services.api.verrater.v1 as api
from services.api.verrater.v1 import game_pb2
from services.rpc import Role, TokenIssuer

T = TypeVar("T")

#: The server's limit on a request message (services/bootstrap.py): huge fields stay under it.
MAX_REQUEST_BYTES = 1024 * 1024 - 64
#: Ids that break the id rules (services/rpc/ids.py) in every way we know of.
MALFORMED_IDS = ("", "bad id!", "a\n", "x" * 65, "ü", "../x", "a%00", "-" * 64 + "z")
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT32 = (0, 2**32 - 1)
_UINT64 = (0, 2**64 - 1)
_F = FieldDescriptor
_RANGES = {
    _F.TYPE_INT32: _INT32,
    _F.TYPE_SINT32: _INT32,
    _F.TYPE_SFIXED32: _INT32,
    _F.TYPE_INT64: _INT64,
    _F.TYPE_SINT64: _INT64,
    _F.TYPE_SFIXED64: _INT64,
    _F.TYPE_UINT32: _UINT32,
    _F.TYPE_FIXED32: _UINT32,
    _F.TYPE_UINT64: _UINT64,
    _F.TYPE_FIXED64: _UINT64,
}
#: What a number field is set to, most of the time: where off-by-one and sign bugs live.
_EDGES = (0, 1, -1, 2, 3, 4, 5, 7, 14, 15, 100, 3600, 3601, 86_400 * 15)


class Draw(Protocol):
    """The primitive choices a hostile request is made of."""

    def integer(self, low: int, high: int) -> int:
        """A whole number from `low` to `high`, both included."""

    def choice(self, options: Sequence[T]) -> T:
        """One of `options`."""

    def binary(self, max_size: int) -> bytes:
        """Up to `max_size` bytes."""

    def text(self, max_size: int) -> str:
        """Up to `max_size` characters, from all of Unicode."""


class RandomDraw:
    """Draws from a seeded random generator (what the benchmark replays)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def integer(self, low: int, high: int) -> int:
        return self._rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return self._rng.choice(options)

    def binary(self, max_size: int) -> bytes:
        return self._rng.randbytes(self._rng.randint(0, max_size))

    def text(self, max_size: int) -> str:
        size = self._rng.randint(0, max_size)
        points = (self._rng.choice((0x20, 0x41, 0xE9, 0x3B1, 0x1F600)) for _ in range(size))
        return "".join(chr(point + self._rng.randint(0, 25)) for point in points)


def _chance(draw: Draw, one_in: int) -> bool:
    """True one time in `one_in`: on the draw's highest value, which hypothesis shrinks away
    from, so a shrunk example keeps a rare choice only when the failure needs it."""
    return draw.integer(1, one_in) == one_in


@dataclass(frozen=True, slots=True)
class Method:
    """One RPC: its path on the wire, its request message, and which sides stream."""

    path: str
    request: type[Message]
    client_streaming: bool
    server_streaming: bool

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]


def api_methods() -> tuple[Method, ...]:
    """Every RPC of every service of the API (`verrater.v1`), from the generated descriptors."""
    methods = []
    for module_info in pkgutil.iter_modules(api.__path__):
        if not module_info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"{api.__name__}.{module_info.name}")
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                methods.append(
                    Method(
                        f"/{service.full_name}/{method.name}",
                        message_factory.GetMessageClass(method.input_type),
                        method.client_streaming,
                        method.server_streaming,
                    )
                )
    return tuple(sorted(methods, key=lambda method: method.path))


@dataclass(frozen=True, slots=True)
class Targets:
    """What hostile requests aim at: real ids beside absent and malformed ones, the players
    whose tokens they carry, and the secret real tokens are signed with."""

    issuer: TokenIssuer
    #: Games that exist (running, finished), and ids of none.
    game_ids: tuple[str, ...]
    table_ids: tuple[str, ...]
    player_ids: tuple[str, ...]
    #: Seats of the games: seat tokens name these and some that no game has.
    seats: int = 4


# --- tokens -----------------------------------------------------------------------------------

Metadata = tuple[tuple[str, str], ...]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(claims: dict[str, object]) -> str:
    """A JWT with `alg: none` and no signature: what a forger hopes a careless verifier takes."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{_b64(json.dumps(claims).encode())}."


def _claims(draw: Draw, targets: Targets) -> dict[str, object]:
    """Claims a real token of ours could carry, for a forger to sign badly."""
    claims: dict[str, object] = {
        "sub": draw.choice(targets.player_ids),
        "role": draw.choice(("player", "service")),
        "iss": "verrater",
        "iat": int(time.time()),
        "exp": int(time.time()) + 3600,
    }
    if _chance(draw, 2):
        claims["gid"] = draw.choice(targets.game_ids)
        claims["seat"] = _seat(draw, targets)
    return claims


def _seat(draw: Draw, targets: Targets) -> int:
    """A seat of the games, most of the time; else one that no game has."""
    if _chance(draw, 5):
        return draw.choice((-1, targets.seats, 2**31 - 1))
    return draw.integer(0, targets.seats - 1)


def token(draw: Draw, targets: Targets) -> str:
    """A bearer token of any kind: a player's, another seat's, the platform's, or a bad one
    (bad ones a third of the time: the good ones get further)."""
    issuer = targets.issuer
    subject = draw.choice(targets.player_ids)
    game_id = draw.choice(targets.game_ids)
    seat = _seat(draw, targets)
    kind = draw.choice(
        ("seat", "seat", "seat", "seat", "player", "player", "service")
        + ("expired", "forged", "unsigned", "tampered")
    )
    if kind == "player":
        return issuer.mint(subject)
    if kind == "seat":
        return issuer.mint(subject, game_id=game_id, seat=seat)
    if kind == "service":
        return issuer.mint("lobby", role=Role.SERVICE, game_id=game_id, seat=seat)
    if kind == "expired":
        return issuer.mint(subject, game_id=game_id, seat=seat, ttl_seconds=-draw.integer(1, 90))
    if kind == "forged":
        forger = TokenIssuer("not-our-secret-but-at-least-32-bytes-long")
        return forger.mint(subject, role=draw.choice(tuple(Role)), game_id=game_id, seat=seat)
    if kind == "unsigned":
        return _unsigned(_claims(draw, targets))
    # A real token whose claims were swapped for better ones, its signature kept.
    header, _, signature = issuer.mint(subject).split(".")
    return f"{header}.{_b64(json.dumps(_claims(draw, targets)).encode())}.{signature}"


def metadata(draw: Draw, targets: Targets) -> Metadata:
    """Call metadata of any caller, honest or not: no token, one token, two, or a bad header."""
    kind = draw.choice(("token",) * 8 + ("none", "header", "two"))
    if kind == "none":
        entries: Metadata = ()
    elif kind == "token":
        scheme = draw.choice(("Bearer", "Bearer", "bearer", "BEARER"))
        entries = (("authorization", f"{scheme} {token(draw, targets)}"),)
    elif kind == "two":
        entries = (
            ("authorization", f"Bearer {token(draw, targets)}"),
            ("authorization", f"Bearer {token(draw, targets)}"),
        )
    else:  # what a header may carry (gRPC clients refuse anything else before sending)
        junk = "".join(ch for ch in draw.text(80) if " " <= ch <= "~").strip()
        prefix = draw.choice(("", "Bearer ", "Bearer  ", "Basic ", "Bearer x.y.z "))
        entries = (("authorization", (prefix + junk).strip() or "x"),)
    if _chance(draw, 8):  # believed only from a trusted proxy, which the tests have none of
        entries += (("x-forwarded-for", draw.choice(("203.0.113.9", "not an address", "::1"))),)
    if _chance(draw, 8):
        trace = "".join(ch for ch in draw.text(200) if " " < ch <= "~") or "t"
        entries += (("x-trace-id", trace),)
    return entries


# --- messages ---------------------------------------------------------------------------------


def _string(draw: Draw, name: str, targets: Targets) -> str:
    pools = {
        "game_id": targets.game_ids,
        "table_id": targets.table_ids,
        "player_id": targets.player_ids,
    }
    pool = pools.get(name)
    if pool is not None and not _chance(draw, 4):
        return draw.choice(pool)
    if name.endswith("_id") and not _chance(draw, 4):
        return draw.choice((*MALFORMED_IDS, "again", f"id-{draw.integer(0, 10**9)}"))
    if name == "cursor" and not _chance(draw, 4):  # notification cursors are stream entry ids
        milliseconds = draw.choice((0, 1, int(time.time() * 1000), 2**64 - 1, 2**64))
        return f"{milliseconds}-{draw.choice((0, 1, 2**63))}"
    return draw.text(draw.choice((8, 40, 300)))


def _scalar(draw: Draw, descriptor: FieldDescriptor, targets: Targets) -> Any:
    kind = descriptor.type
    if kind == _F.TYPE_STRING:
        return _string(draw, descriptor.name, targets)
    if kind == _F.TYPE_BYTES:
        return draw.binary(draw.choice((0, 32, 64, 300)))
    if kind == _F.TYPE_BOOL:
        return draw.choice((False, True))
    if kind in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        return draw.choice((0.0, -1.0, 0.5, 1e30, -1e30, math.inf, -math.inf, math.nan))
    if kind == _F.TYPE_ENUM:
        known = [value.number for value in descriptor.enum_type.values]
        if _chance(draw, 3):  # a number the schema does not have (open enums keep it)
            return draw.choice((max(known) + 1, -1, draw.integer(*_INT32)))
        return draw.choice(known)
    low, high = _RANGES[kind]
    edges = [edge for edge in _EDGES if low <= edge <= high]
    if _chance(draw, 3):
        return draw.choice((low, high, draw.integer(low, high)))
    return draw.choice(edges)


@dataclass(slots=True)
class _Filler:
    """Sets some of a message's fields to hostile values; at most one repeated field of the
    whole message is filled up to the size limit (`huge`), none inside an element that a
    repeated field repeats."""

    draw: Draw
    targets: Targets
    huge_allowed: bool = True
    huge: tuple[Message, FieldDescriptor] | None = None

    def fill(self, message: Message, depth: int = 0) -> None:
        """Set some fields, one member of each oneof at most."""
        descriptor: Descriptor = message.DESCRIPTOR
        for oneof in descriptor.oneofs:
            if len(oneof.fields) > 1:  # a real oneof (an optional field's synthetic one has one)
                chosen = self.draw.choice((None, *oneof.fields))
                if chosen is not None:
                    self.set(message, chosen, depth)
        for field_descriptor in descriptor.fields:
            oneof = field_descriptor.containing_oneof
            if oneof is not None and len(oneof.fields) > 1:
                continue
            if self.draw.choice((False, True, True)):
                self.set(message, field_descriptor, depth)

    def set(self, message: Message, descriptor: FieldDescriptor, depth: int) -> None:
        draw = self.draw
        is_message = descriptor.type == _F.TYPE_MESSAGE
        if descriptor.label != _F.LABEL_REPEATED:
            if is_message:
                child = getattr(message, descriptor.name)
                child.SetInParent()
                if depth < 4:
                    self.fill(child, depth + 1)
            else:
                setattr(message, descriptor.name, _scalar(draw, descriptor, self.targets))
            return
        values = getattr(message, descriptor.name)
        huge = self.huge_allowed and self.huge is None and _chance(draw, 12)
        count = draw.integer(1, 200_000) if huge else draw.integer(0, 5)
        if huge:
            self.huge = (message, descriptor)
        if is_message:
            element = message_factory.GetMessageClass(descriptor.message_type)()
            if depth < 4:
                _Filler(draw, self.targets, huge_allowed=False).fill(element, depth + 1)
            values.extend([element] * min(count, 50_000))
        elif huge:
            values.extend([_scalar(draw, descriptor, self.targets)] * count)
        else:
            values.extend(_scalar(draw, descriptor, self.targets) for _ in range(count))


def hostile_message(draw: Draw, request: type[Message], targets: Targets) -> Message:
    """A well-formed `request` with hostile values, under the server's size limit."""
    message = request()
    filler = _Filler(draw, targets)
    filler.fill(message)
    while filler.huge is not None and message.ByteSize() > MAX_REQUEST_BYTES:
        owner, descriptor = filler.huge
        values = getattr(owner, descriptor.name)
        del values[len(values) // 2 :]
    return message


def raw_bytes(draw: Draw, request: type[Message], targets: Targets) -> bytes:
    """Bytes that may or may not be a `request`: random ones, a real one cut or bitten into, a
    length that runs past the end, text that is not UTF-8."""
    kind = draw.choice(("random", "random", "cut", "flipped", "overrun", "not-utf8"))
    if kind == "random":
        return draw.binary(draw.choice((8, 64, 1024)))
    real = hostile_message(draw, request, targets).SerializeToString()
    if kind == "cut":
        return real[: draw.integer(0, len(real))]
    if kind == "flipped" and real:
        at = draw.integer(0, len(real) - 1)
        return real[:at] + bytes([real[at] ^ draw.integer(1, 255)]) + real[at + 1 :]
    if kind == "overrun":  # field 1, length-delimited, claiming more bytes than follow
        return b"\x0a\xff\xff\x3f" + draw.binary(16)
    # Field 1 as a string of bytes that are not UTF-8 (every request's field 1 is a string,
    # a message or a number: each must fail to decode or decode as something else, cleanly).
    return b"\x0a\x02\xff\xfe" + real


# --- a call -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HostileCall:
    """One call to make: the method, its metadata, and the request bytes (several on a request
    stream)."""

    method: Method
    metadata: Metadata
    requests: tuple[bytes, ...]

    def __str__(self) -> str:
        shown = [request[:120] for request in self.requests]
        return f"{self.method.path} metadata={self.metadata!r} requests={shown!r}"


def hostile_call(
    draw: Draw, methods: Sequence[Method], targets: Targets, *, raw: bool | None = None
) -> HostileCall:
    """A hostile call of one of `methods`: raw bytes (`raw`), well-formed messages (not
    `raw`), or either (None: raw bytes a quarter of the time). A Play stream opens a game first,
    most of the time, to get past the door."""
    method = draw.choice(methods)
    count = draw.integer(1, 4) if method.client_streaming else 1
    requests = []
    for index in range(count):
        if raw or (raw is None and _chance(draw, 4)):
            requests.append(raw_bytes(draw, method.request, targets))
            continue
        message = hostile_message(draw, method.request, targets)
        if method.request is game_pb2.PlayRequest and not _chance(draw, 4):
            if index == 0:
                message = game_pb2.PlayRequest(
                    open=game_pb2.PlayOpen(
                        game_id=draw.choice(targets.game_ids),
                        from_version=draw.choice((0, 0, 1, 10**6, -1)),
                    )
                )
            elif message.WhichOneof("request") != "command":
                message = game_pb2.PlayRequest(
                    command=hostile_message(draw, game_pb2.SubmitCommandRequest, targets)  # type: ignore[arg-type]
                )
        requests.append(message.SerializeToString())
    return HostileCall(method, metadata(draw, targets), tuple(requests))
