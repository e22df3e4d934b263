"""The one rule for ids a client sends or receives (game, table, player ids).

1-64 letters, digits, '-' or '_': safe in Redis keys, URLs, logs and file names. Matched in full,
so a trailing newline (which `$` would let through) is refused like any other character.
"""

from __future__ import annotations

import re

from services.errors import Reason, ServiceError

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
ID_RULE = "1-64 letters, digits, '-' or '_'"


def is_valid_id(value: str) -> bool:
    return ID_PATTERN.fullmatch(value) is not None


def checked_id(value: str, field: str) -> str:
    """`value` when it is a valid id, else INVALID_ID naming `field`."""
    if ID_PATTERN.fullmatch(value) is None:
        raise ServiceError(Reason.INVALID_ID, f"{field} must be {ID_RULE}", field=field)
    return value
