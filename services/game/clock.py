"""Turn clocks: when a timed decision is due, and when its player is warned.

A table's `turn_seconds` gives a person that long per decision; when it runs out a bot decides
for them (the decision event records `turn_timer_expired`). The clock starts when the game comes
to rest waiting for the decision: the append time of the batch that led there, recorded in the
log (`GameEvent.recorded_at_ms`), so every replica, a restarted one too, computes the same
deadline from the events alone. Times are Unix milliseconds on the servers' clocks.
"""

from __future__ import annotations

from services.engine import GameState, Phase, to_act

from .errors import PersonsSeat, TurnTimerRunning

#: A warning comes this share of the turn before the deadline...
WARNING_SHARE = 0.2
#: ...but never earlier than this before it (a day-long turn warns a minute before, not hours).
MAX_WARNING_MS = 60_000
#: How far a replica's clock may lag the clock of the replica whose sweeper found a turn timer
#: run out: a stand-in's decision that much before the deadline is still taken.
CLOCK_TOLERANCE_MS = 5_000


def deadline_ms(state: GameState, rest_since_ms: int) -> int | None:
    """When the decision `state` awaits is due; None without a turn timer, when nothing is
    awaited, or when the log does not say when the game came to rest (written before times
    were recorded)."""
    if state.turn_seconds <= 0 or rest_since_ms <= 0 or state.phase is Phase.GAME_OVER:
        return None
    if not to_act(state):
        return None
    return rest_since_ms + state.turn_seconds * 1000


def warning_ms(state: GameState, deadline: int) -> int:
    """When the players a timed decision waits for are told that it runs out soon."""
    turn_ms = state.turn_seconds * 1000
    return deadline - min(int(turn_ms * WARNING_SHARE), MAX_WARNING_MS)


def human_seats_to_act(state: GameState) -> tuple[int, ...]:
    """The seats that must decide and are people (a bot's decision needs no clock). A game
    without seating (a sandbox) has no people to stand in for."""
    return tuple(seat for seat in to_act(state) if is_person(state, seat))


def is_person(state: GameState, seat: int) -> bool:
    """Whether a person sits at `seat` (not a bot; a game without seating has no people)."""
    seating = state.seating
    return 0 <= seat < len(seating) and seating[seat].bot_level is None


def bot_seats_to_act(state: GameState) -> tuple[int, ...]:
    """The seats that must decide and are bots (their turns may need announcing again)."""
    seating = state.seating
    if not seating or state.phase is Phase.GAME_OVER:
        return ()
    return tuple(seat for seat in to_act(state) if seating[seat].bot_level is not None)


def check_service_decision(
    state: GameState, seat: int, turn_timer_expired: bool, rest_since_ms: int, now_ms: int
) -> None:
    """Refuse a decision a service (the AI's workers) sends for `seat` that is not the
    platform's to make. Services play bot seats, and every seat of a game without seating (a
    sandbox); a person's seat only as a stand-in (`turn_timer_expired`) once its timer has run
    out. So whoever can write to the workers' broker still cannot play a person's hand."""
    person = is_person(state, seat)
    if not turn_timer_expired:
        if person:
            raise PersonsSeat(seat)
        return
    if not person:
        raise TurnTimerRunning(seat, "it is not a person's seat, so it has no turn timer")
    deadline = deadline_ms(state, rest_since_ms)
    if deadline is None:
        raise TurnTimerRunning(seat, "no turn timer is running in this game now")
    if now_ms + CLOCK_TOLERANCE_MS < deadline:
        raise TurnTimerRunning(seat, f"its turn timer runs until {deadline} (Unix ms)")
