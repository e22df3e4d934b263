"""The documented deterministic shuffle generator (provably fair dealing).

Every shuffle of a game is derived from the game's secret seed (32 random bytes) and a label
naming the shuffle, e.g. ``"ring"`` or ``"draft:3"``. The first event commits to
``sha256(seed)``; the last event reveals the seed, so anyone can recompute every shuffle:

1. Random words: block ``i`` (i = 0, 1, 2, ...) is ``sha256(seed || label_utf8 || i as 8-byte
   big-endian)``; each block yields four 64-bit big-endian unsigned words, used in order.
2. ``uniform(n)`` (a number in ``0..n-1``): take words ``w`` until ``w < 2**64 - (2**64 % n)``
   (rejection sampling, no modulo bias) and return ``w % n``.
3. ``shuffle(items)``: Fisher-Yates from the back: for ``i`` from ``len-1`` down to ``1``,
   ``j = uniform(i + 1)``, swap items ``i`` and ``j``.

The generator is a few lines in any language; ``tests/engine/test_rng.py`` pins known outputs.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 2**64
SEED_BYTES = 32


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed, published in the game's first event."""
    return hashlib.sha256(seed).hexdigest()


class ShuffleStream:
    """The stream of random words for one labelled shuffle."""

    __slots__ = ("_block", "_prefix", "_words")

    def __init__(self, seed: bytes, label: str) -> None:
        self._prefix = seed + label.encode("utf-8")
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            # Reversed so that pop() hands out the words in order.
            self._words = [int.from_bytes(digest[k : k + 8], "big") for k in (24, 16, 8, 0)]
        return self._words.pop()

    def uniform(self, n: int) -> int:
        """A uniformly distributed integer in ``0..n-1``."""
        limit = _WORD - (_WORD % n)
        while True:
            word = self._word()
            if word < limit:
                return word % n


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> tuple[T, ...]:
    """The items in the order the labelled shuffle of this seed puts them."""
    out = list(items)
    stream = ShuffleStream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)
