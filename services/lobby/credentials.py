"""A player's long-lived credential: what SignIn takes to hand out a fresh token.

The credential is 256 random bits, shown to the client once (RegisterGuest, RotateCredential);
the lobby keeps only its SHA-256. A salted slow hash is for passwords people choose: a digest
of a random 256-bit secret cannot be reversed or guessed, so one fast hash is enough.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: A credential is 43 characters; anything much longer is not one (and is not hashed).
MAX_CREDENTIAL_CHARS = 128
#: Compared against when the player is unknown, so that case costs what a wrong credential does.
_NOBODY = hashlib.sha256(b"no such player").hexdigest()


def new_credential() -> str:
    """A fresh credential: 32 random bytes, URL-safe base64."""
    return secrets.token_urlsafe(32)


def digest(credential: str) -> str:
    """What the store keeps of a credential."""
    return hashlib.sha256(credential.encode()).hexdigest()


def matches(credential: str, stored: str | None) -> bool:
    """Whether `credential` is the one whose digest is `stored` (None: no such player), in
    constant time."""
    if len(credential) > MAX_CREDENTIAL_CHARS:
        return False
    same = hmac.compare_digest(digest(credential), stored or _NOBODY)
    return same and stored is not None


def tag(stored: str) -> str:
    """Names the credential whose digest is `stored` in the player tokens issued under it (a
    token claim: it tells one credential from the next without showing the digest)."""
    return hashlib.sha256(b"verrater-credential-tag:" + stored.encode()).hexdigest()[:16]
