"""Hypothesis for the hostile-client tests: its draws behind the corpus's `Draw`, and how hard
to fuzz.

`VERRATER_FUZZ_PROFILE` picks the profile: `hostile-ci` (the default: derandomized, so
`make test` sends the same examples on every run and stays within its time) or
`hostile-explore` (random examples, ten times as many, failures kept in hypothesis's database:
run it for a while before a release, `VERRATER_FUZZ_PROFILE=hostile-explore pytest
tests/hostile`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

T = TypeVar("T")

settings.register_profile(
    "hostile-ci",
    max_examples=10,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "hostile-explore",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ = settings.get_profile(os.environ.get("VERRATER_FUZZ_PROFILE", "hostile-ci"))


class HypothesisDraw:
    """The corpus's choices (services/bench/hostile.py) drawn by hypothesis, one primitive at a
    time, so a failing example shrinks to the few choices that matter."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data

    def integer(self, low: int, high: int) -> int:
        return self._data.draw(st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        return self._data.draw(st.sampled_from(options))

    def binary(self, max_size: int) -> bytes:
        return self._data.draw(st.binary(max_size=max_size))

    def text(self, max_size: int) -> str:
        return self._data.draw(st.text(max_size=max_size))
