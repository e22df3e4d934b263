"""Tuning a long-lived server process once it has started (bot workers measured no gain:
docs/BENCHMARKS.md)."""

from __future__ import annotations

import gc

#: A process that holds games (the game service, alone or with the others): young collections
#: once 20,000 more objects are tracked, the middle generation every 20 of them.
GAME_THRESHOLDS = (20_000, 20, 20)
#: A process without games (lobby, ai): what its calls leave is garbage, so small collections.
CALLS_THRESHOLDS = (2_000, 5, 500)


def tune_garbage_collector(*, holds_games: bool) -> None:
    """Collect young objects less often, and never re-scan what startup built.

    A command allocates thousands of short-lived objects (events, views, messages), so the
    default threshold of 700 runs a young collection several times per command; and every
    older collection walks the modules, the card table and the gRPC machinery again for
    nothing. `gc.freeze()` moves what exists after startup out of the collector's sight, and a
    higher young threshold makes collections rarer without holding memory for long (reference
    counting frees almost everything at once; the collector is only for cycles). Measured:
    about 5% less CPU per command (docs/BENCHMARKS.md).

    A collection's pause grows with the objects it walks. In a game process many of them are
    live game states, which a collection cannot free. Where people play a few hundred games
    hard, young collections should be rare (at 10,000 the commands' p99 doubled: more pauses
    in more of the commands); where most games are idle, each game loaded cold adds some 30
    live objects that the next young collection walks (at 50,000, pauses of 50-170 ms, which
    held the cold loads' p99). `GAME_THRESHOLDS` is where both measured well. A process
    without games walks mostly garbage: every gRPC call leaves a reference cycle in grpc.aio's
    handler lookup (its ``_find_method_handler`` closure, with the call's metadata), which only
    the collector frees. There, 50,000 meant a 40-80 ms pause every few seconds under load, and
    `CALLS_THRESHOLDS` means pauses of a few ms at the same total cost (docs/BENCHMARKS.md).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*(GAME_THRESHOLDS if holds_games else CALLS_THRESHOLDS))
