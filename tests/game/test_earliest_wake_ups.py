"""The cluster sweeper's memory of each bucket's earliest wake-up answers as a plain dict would:
the due slots and the earliest of all, whatever order buckets are set, lowered and emptied in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.game.timers.earliest import EarliestWakeUps

_SLOTS = st.integers(0, 40)
_WAKES = st.integers(0, 60)
_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), _SLOTS, _WAKES),
        st.tuples(st.just("lower"), _SLOTS, _WAKES),
        st.tuples(st.just("drop"), _SLOTS, st.just(0)),
        st.tuples(st.just("due"), st.just(0), _WAKES),
    ),
    max_size=300,
)


@settings(max_examples=300, deadline=None)
@given(_STEPS)
def test_it_answers_as_a_dict_of_each_buckets_earliest_would(
    steps: list[tuple[str, int, int]],
) -> None:
    earliest = EarliestWakeUps()
    model: dict[int, int] = {}
    for step, slot, wake in steps:
        if step == "set":
            earliest.set(slot, wake)
            model[slot] = wake
        elif step == "lower":
            earliest.lower(slot, wake)
            model[slot] = min(model.get(slot, wake), wake)
        elif step == "drop":
            earliest.drop(slot)
            model.pop(slot, None)
        else:
            due = earliest.due(wake)
            assert sorted(due) == sorted(s for s, w in model.items() if w <= wake)
            assert len(due) == len(set(due))
            assert [model[s] for s in due] == sorted(model[s] for s in due)  # earliest first
        assert earliest.first() == min(model.values(), default=None)
        assert len(earliest) == len(model)
        assert all(earliest.get(s) == w and s in earliest for s, w in model.items())


def test_the_heap_stays_bounded_by_the_buckets_it_remembers() -> None:
    earliest = EarliestWakeUps()
    for round_ in range(50):
        for slot in range(200):
            earliest.set(slot, 1_000 * round_ + slot)  # every bucket moves on, 50 times
    assert earliest.first() == 49_000
    assert len(earliest._heap) <= 2 * len(earliest) + 1024
    assert earliest.due(49_010) == list(range(11))
