"""When a game's state wants looking at: its warning and deadline, the rechecks of bots that
owe a move, the one look at a person's turn and at a game's end (see the package docstring)."""

from __future__ import annotations

from services.engine import GameState, Phase

from ..clock import bot_seats_to_act, deadline_ms, human_seats_to_act, warning_ms

#: The longest interval between two looks at a game whose bots still owe their move.
MAX_RECHECK_MS = 60_000


def next_wake(state: GameState, rest_since_ms: int, now_ms: int, recheck_ms: int = 0) -> int | None:
    """When to look at a game next, as of `state`: at the warning, else at the deadline of a
    person's timed decision; when bots must act (and `recheck_ms` is set), at their next
    recheck; when a person must, at the one look at their turn (`persons_look_at`) while it is
    ahead; once the game is over, at the one look at its end (`ends_look_at`) while it is
    ahead; None when nothing is awaited."""
    if state.phase is Phase.GAME_OVER:
        end = ends_look_at(rest_since_ms or now_ms, recheck_ms)
        return end if end is not None and now_ms < end else None
    wakes = []
    deadline = deadline_ms(state, rest_since_ms)
    if human_seats_to_act(state):
        if deadline is not None:
            warning = warning_ms(state, deadline)
            wakes.append(warning if now_ms < warning else deadline)
        look = persons_look_at(state, rest_since_ms or now_ms, recheck_ms, deadline)
        if look is not None and now_ms < look:
            wakes.append(look)
    if recheck_ms > 0 and bot_seats_to_act(state):
        wakes.append(recheck_at(rest_since_ms or now_ms, now_ms, recheck_ms))
    return min(wakes, default=None)


def persons_look_at(
    state: GameState, rest_since_ms: int, recheck_ms: int, deadline: int | None
) -> int | None:
    """When a person's turn pending since `rest_since_ms` is looked at, once: `recheck_ms`
    after it began, and on a timed table only if that comes before the warning (which tells
    the person anyway); None: no look (`recheck_ms` 0, or the warning comes first)."""
    if recheck_ms <= 0:
        return None
    look = rest_since_ms + recheck_ms
    if deadline is not None and look >= warning_ms(state, deadline):
        return None
    return look


def ends_look_at(ended_ms: int, recheck_ms: int) -> int | None:
    """When the end of a game that ended at `ended_ms` is looked at, once: `recheck_ms` after
    it; None: no look (`recheck_ms` 0)."""
    return ended_ms + recheck_ms if recheck_ms > 0 else None


def wake_stands(known: tuple[int, int | None] | None, before: int, wake: int | None) -> bool:
    """Whether the wake-up this replica set for the state at `before` (the state the new one
    follows, so no other replica has appended since) may stand for a state due at `wake`: it
    comes no later (looking early is harmless) and there is one."""
    return (
        known is not None
        and known[0] == before
        and known[1] is not None
        and (wake is not None and known[1] <= wake)
    )


def nothing_to_clear(known: tuple[int, int | None] | None, before: int) -> bool:
    """Whether this replica left no wake-up for the state at `before` (the state the new one
    follows, so no other replica has appended since): a next state that awaits nothing timed
    needs no Redis call. (Should another replica's sweep have set one meanwhile, it fires once,
    finds nothing due and clears itself.)"""
    return known is not None and known[0] == before and known[1] is None


def recheck_at(rest_since_ms: int, now_ms: int, recheck_ms: int) -> int:
    """When to look again at bots' turns pending since `rest_since_ms`: `recheck_ms` after it,
    then after as long again as they have waited (doubling), at most `MAX_RECHECK_MS` apart."""
    waited = now_ms - rest_since_ms
    if waited < recheck_ms:
        return rest_since_ms + recheck_ms
    return now_ms + min(waited, MAX_RECHECK_MS)
