"""What a chat message's text becomes before it is stored: one function, `normalise`.

Unicode NFC, so that the same words typed on two keyboards are the same characters (and count
the same against the limit); line breaks and tabs become spaces and every other control
character goes; the explicit bidirectional formatting characters (embeddings, overrides and
isolates, U+202A-U+202E and U+2066-U+2069) go too, so no message can turn the text shown after
it around (the "Trojan Source" trick); white space at either end is trimmed. What is left must
be 1 to `MAX_CHARACTERS` characters (code points), else the message is refused.
"""

from __future__ import annotations

import unicodedata

from services.errors import Reason, ServiceError

#: The most characters a message (or a report's note) may have once normalised.
MAX_CHARACTERS = 280

_BIDI_CONTROLS = frozenset(chr(point) for point in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
_SPACES = frozenset("\t\n\r\v\f\x85\u2028\u2029")


def _kept(character: str) -> str:
    if character in _SPACES:
        return " "
    if character in _BIDI_CONTROLS or unicodedata.category(character) == "Cc":
        return ""
    return character


def clean(raw: str, field: str = "text") -> str:
    """`raw` normalised (see the module docstring), which may be empty; CHAT_TEXT_TOO_LONG when
    more than MAX_CHARACTERS are left."""
    text = "".join(_kept(character) for character in unicodedata.normalize("NFC", raw)).strip()
    if len(text) > MAX_CHARACTERS:
        raise ServiceError(
            Reason.CHAT_TEXT_TOO_LONG,
            f"at most {MAX_CHARACTERS} characters, once normalised; this has {len(text)}",
            field=field,
            limit=str(MAX_CHARACTERS),
        )
    return text


def normalise(raw: str) -> str:
    """A message's text as stored: `clean`, and CHAT_TEXT_EMPTY when nothing is left."""
    text = clean(raw)
    if not text:
        raise ServiceError(
            Reason.CHAT_TEXT_EMPTY,
            "the message has no text once control and formatting characters are removed",
            field="text",
        )
    return text
