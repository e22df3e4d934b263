"""Signed tokens shared by every service: who the caller is, and which seat they may act for.

Tokens are JWTs (HS256, PyJWT) signed with the deployment's secret. A player token names the
player; a seat token additionally binds that player to one seat of one game; a service token
lets the lobby create games. The token travels as gRPC metadata `authorization: Bearer <jwt>`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

import jwt

from services.errors import Reason

#: The secret used when none is configured: public, so accepted on loopback only (a server
#: reachable from elsewhere gets a random secret instead; distributed mode refuses to start).
DEVELOPMENT_SECRET = "verrater-development-secret-do-not-deploy"
#: A configured secret shorter than this is refused (HS256 wants at least the hash's size).
MIN_SECRET_BYTES = 32
ALGORITHM = "HS256"
ISSUER = "verrater"
METADATA_KEY = "authorization"
#: Player tokens are short-lived: a client refreshes them (RefreshToken, or SignIn with its
#: credential), so a stolen token is worth an hour at most.
DEFAULT_TOKEN_TTL_SECONDS = 3600


class Role(StrEnum):
    PLAYER = "player"
    SERVICE = "service"


@dataclass(frozen=True, slots=True)
class Identity:
    """The verified claims of a token."""

    subject: str
    role: Role
    game_id: str | None
    seat: int | None
    expires_at: int
    #: Which credential the player token was issued under (services/lobby/credentials.py
    #: `tag`): the lobby refuses to refresh a token, or rotate with it, once the credential was
    #: rotated. None in seat and service tokens, and in tokens issued before the claim existed.
    credential_tag: str | None = None

    def seat_in(self, game_id: str) -> int | None:
        """The seat this caller may act for in `game_id` (None: a spectator there)."""
        return self.seat if self.game_id == game_id else None


class InvalidToken(Exception):
    """The token is malformed, forged or expired; the message says which, `reason` is
    TOKEN_EXPIRED or TOKEN_INVALID."""

    def __init__(self, message: str, reason: Reason = Reason.TOKEN_INVALID) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TokenIssuer:
    """Mints and verifies tokens with one secret."""

    secret: str
    ttl_seconds: int = DEFAULT_TOKEN_TTL_SECONDS

    def mint(
        self,
        subject: str,
        *,
        role: Role = Role.PLAYER,
        game_id: str | None = None,
        seat: int | None = None,
        ttl_seconds: int | None = None,
        now: float | None = None,
        credential_tag: str | None = None,
    ) -> str:
        issued = int(time.time() if now is None else now)
        claims: dict[str, object] = {
            "sub": subject,
            "role": str(role),
            "iss": ISSUER,
            "iat": issued,
            "exp": issued + (self.ttl_seconds if ttl_seconds is None else ttl_seconds),
        }
        if game_id is not None:
            claims["gid"] = game_id
        if seat is not None:
            claims["seat"] = seat
        if credential_tag is not None:
            claims["ctag"] = credential_tag
        return jwt.encode(claims, self.secret, algorithm=ALGORITHM)

    def verify(self, token: str, *, now: float | None = None) -> Identity:
        """The token's claims; InvalidToken when it is malformed, forged or expired (at `now`,
        default the current time)."""
        try:
            claims = jwt.decode(
                token,
                self.secret,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                # Expiry is checked below against `now`, so a test can inject its clock.
                options={"require": ["sub", "exp", "iss", "role"], "verify_exp": False},
            )
        except jwt.InvalidTokenError as error:
            raise InvalidToken(f"the token is not valid: {error}") from error
        if not isinstance(claims["exp"], int):
            raise InvalidToken("the token is not valid: its exp claim is not an integer")
        if claims["exp"] <= (time.time() if now is None else now):
            raise InvalidToken(
                "the token has expired; refresh it with the lobby", Reason.TOKEN_EXPIRED
            )
        try:
            role = Role(claims["role"])
            seat = claims.get("seat")
            game_id = claims.get("gid")
            if seat is not None and (not isinstance(seat, int) or game_id is None):
                raise ValueError("a seat claim needs an integer seat and a game id")
            tag = claims.get("ctag")
            if tag is not None and not isinstance(tag, str):
                raise ValueError("the ctag claim is not a string")
        except (ValueError, KeyError) as error:
            raise InvalidToken(f"the token's claims are malformed: {error}") from error
        return Identity(
            subject=str(claims["sub"]),
            role=role,
            game_id=str(game_id) if game_id is not None else None,
            seat=seat,
            expires_at=int(claims["exp"]),
            credential_tag=tag,
        )


def bearer(token: str) -> tuple[tuple[str, str]]:
    """gRPC call metadata carrying `token`."""
    return ((METADATA_KEY, f"Bearer {token}"),)
