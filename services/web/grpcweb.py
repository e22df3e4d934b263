"""The gRPC-Web wire format (the gRPC-Web protocol spec, `application/grpc-web+proto`).

A body is a sequence of frames: one flag byte, a 4-byte big-endian length, then the payload. A
flag of 0x00 carries a protobuf message, 0x80 the trailers (`name: value` lines, CRLF-separated,
as HTTP/1 headers); bit 0x01 would mark compression, which this door neither asks for nor
accepts. Metadata travels as HTTP headers; `-bin` metadata is base64, as in gRPC itself.

Pure functions: the door (:mod:`services.web.door`) does the I/O.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

CONTENT_TYPE = "application/grpc-web+proto"
#: What browsers send: the bare type means protobuf as well.
ACCEPTED_TYPES = frozenset({CONTENT_TYPE, "application/grpc-web"})
FRAME_HEADER_BYTES = 5
MESSAGE_FLAG = 0x00
TRAILER_FLAG = 0x80
COMPRESSED_FLAG = 0x01

#: Headers that belong to HTTP, the browser or the proxy chain, never to the call's metadata.
#: Everything else the browser sends reaches the service as metadata, as Envoy's filter does.
TRANSPORT_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "access-control-request-headers",
        "access-control-request-method",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "cookie",
        "dnt",
        "forwarded",
        "host",
        "keep-alive",
        "origin",
        "pragma",
        "priority",
        "proxy-authorization",
        "proxy-connection",
        "referer",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "via",
        "x-forwarded-for",
        "x-forwarded-host",
        "x-forwarded-proto",
        "x-grpc-web",
        "x-user-agent",
    }
)
#: Header prefixes of the same kind: the browser's fetch metadata, gRPC's own reserved keys.
TRANSPORT_PREFIXES = ("sec-", "grpc-", ":")
#: gRPC metadata keys: lowercase letters, digits and `-_.` (the gRPC over HTTP/2 spec).
_METADATA_KEY = re.compile(r"[0-9a-z_.\-]+")
#: `grpc-timeout`: up to 8 digits and a unit.
_TIMEOUT = re.compile(r"([0-9]{1,8})([HMSmun])")
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


class FramingError(ValueError):
    """A request body that is not exactly one uncompressed gRPC-Web message frame."""


def frame(payload: bytes, flag: int = MESSAGE_FLAG) -> bytes:
    """One frame: the flag byte, the payload's length, the payload."""
    return bytes((flag,)) + len(payload).to_bytes(4, "big") + payload


def single_message(body: bytes) -> bytes:
    """The one request message of a unary or server-streaming call's body."""
    if len(body) < FRAME_HEADER_BYTES:
        raise FramingError("the body holds no complete gRPC-Web frame")
    flag = body[0]
    length = int.from_bytes(body[1:FRAME_HEADER_BYTES], "big")
    if flag & COMPRESSED_FLAG:
        raise FramingError("compressed messages are not accepted: send them uncompressed")
    if flag != MESSAGE_FLAG:
        raise FramingError(f"the first frame must carry a message (flag 0x00), not 0x{flag:02x}")
    if len(body) != FRAME_HEADER_BYTES + length:
        raise FramingError("the body must hold exactly one message frame of the length it names")
    return body[FRAME_HEADER_BYTES:]


def grpc_timeout(value: str | None) -> float | None:
    """Seconds from a `grpc-timeout` header (None: no deadline, or one that does not parse)."""
    if value is None:
        return None
    match = _TIMEOUT.fullmatch(value.strip())
    if match is None:
        return None
    return int(match.group(1)) * _TIMEOUT_UNITS[match.group(2)]


def is_transport_header(name: str) -> bool:
    return name in TRANSPORT_HEADERS or name.startswith(TRANSPORT_PREFIXES)


@dataclass(frozen=True, slots=True)
class BadMetadata(ValueError):
    """A `-bin` header whose value is not base64."""

    key: str

    def __str__(self) -> str:
        return f"header {self.key!r} must be base64, as every '-bin' metadata value"


def call_metadata(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str | bytes]]:
    """The call's gRPC metadata from the request's headers, in order, repeated keys kept (a
    second `authorization` must reach the service, which refuses it)."""
    metadata: list[tuple[str, str | bytes]] = []
    for raw_name, value in headers:
        name = raw_name.lower()
        if is_transport_header(name) or not _METADATA_KEY.fullmatch(name):
            continue
        if name.endswith("-bin"):
            try:
                metadata.append((name, base64.b64decode(_padded(value), validate=True)))
            except (binascii.Error, ValueError):
                raise BadMetadata(name) from None
        else:
            metadata.append((name, value))
    return metadata


def _padded(text: str) -> str:
    text = text.strip()
    return text + "=" * (-len(text) % 4)


def header_value(key: str, value: str | bytes) -> str:
    """A metadata value as an HTTP header value: `-bin` values base64, text as it is."""
    if isinstance(value, bytes):
        if key.endswith("-bin"):
            return base64.b64encode(value).decode("ascii")
        return value.decode("latin-1")
    return value


def percent_encoded(message: str) -> str:
    """`grpc-message` as the gRPC spec sends it: UTF-8, percent-encoding outside printable
    ASCII and `%` itself."""
    return quote(message, safe="".join(chr(c) for c in range(0x20, 0x7F) if c != ord("%")))


def trailers(code: int, message: str, metadata: Iterable[tuple[str, str | bytes]] = ()) -> bytes:
    """The trailer frame: the status, its message, then the call's trailing metadata (such as
    `grpc-status-details-bin`), one `name: value` line each."""
    lines = [f"grpc-status: {code}"]
    if message:
        lines.append(f"grpc-message: {percent_encoded(message)}")
    for key, value in metadata:
        lines.append(f"{key}: {header_value(key, value)}")
    return frame(("\r\n".join(lines) + "\r\n").encode("latin-1"), TRAILER_FLAG)


def parse_trailers(payload: bytes) -> dict[str, list[str]]:
    """A trailer frame's payload as names and their values (for clients and tests)."""
    parsed: dict[str, list[str]] = {}
    for line in payload.decode("latin-1").split("\r\n"):
        if line:
            name, _, value = line.partition(":")
            parsed.setdefault(name.strip().lower(), []).append(value.strip())
    return parsed


def parse_frames(body: bytes) -> list[tuple[int, bytes]]:
    """A response body as (flag, payload) frames (for clients and tests)."""
    frames: list[tuple[int, bytes]] = []
    offset = 0
    while offset < len(body):
        if len(body) - offset < FRAME_HEADER_BYTES:
            raise FramingError("a truncated frame header")
        flag = body[offset]
        length = int.from_bytes(body[offset + 1 : offset + FRAME_HEADER_BYTES], "big")
        start = offset + FRAME_HEADER_BYTES
        if len(body) < start + length:
            raise FramingError("a truncated frame")
        frames.append((flag, body[start : start + length]))
        offset = start + length
    return frames
