"""What follows a change in a game, in one place: every message the game service publishes
(services/game/announcements.py) and the handlers that act on it, in the order they act.

The game service and its turn-timer sweeper publish what happened and know nothing of who acts
on it: the bots (services/ai), the stats (services/stats), the players' notifications
(services/notifications) and the table chat (services/chat) are packages the game service may
not import. Here each message meets them. services/bootstrap.py builds the `Followers` and
`message_bus(followers)`, and gives the game service and the sweeper the bus's `handle`.

Each handler is quick and never waits: it hands its work to a queue of its own (the bot
launcher, the finished-game feed, the notification publisher, the lobby's progress board), so
a command never waits for a bot, the stats, a notification store or the lobby. Repeats are
harmless (a bot turn is decided once per seat and version, the stats record a game once,
notifications are deduplicated, the board keeps the newest version), which is what lets a
state be announced again when nobody knows whether it was announced.

Not here, on purpose: watchers wait on the cached game itself, which wakes them whenever it
advances, whoever appended; the wake-up a state needs is written by the game service around
the append, under the game's lock, as its durability depends on that order
(services/game/timers/wakeups.py). What the sweeper finds when a wake-up comes is here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.ai.dispatch import BotScheduler
from services.chat import GameEndings
from services.engine import Phase
from services.game.announcements import (
    AtRest,
    BatchAppended,
    BotsOverdue,
    GameLoaded,
    GameOverLookedAt,
    PersonsTurnLookedAt,
    TurnTimerRanOut,
    TurnTimerRunningOut,
    WatcherArrived,
)
from services.lobby.model import table_of_game
from services.lobby.progress import ProgressBoard, summarize
from services.messagebus import MessageBus
from services.notifications import GameNotifier
from services.stats import FinishedGameFeed


@dataclass(frozen=True, slots=True)
class Followers:
    """Who acts on the game's announcements in this process."""

    #: Tells the people seated what a state means for them.
    players: GameNotifier
    #: Passes games that are over to the stats.
    finished: FinishedGameFeed
    #: Sends bots their turns (None: bots are off in this process).
    bots: BotScheduler | None = None
    #: Closes a table's chat some time after its game ended (None: no chat in this process).
    chat: GameEndings | None = None
    #: Keeps where each table's game stands, for ListMyGames (None: not in this process).
    progress: ProgressBoard | None = None


def record_progress(news: AtRest, to: Followers) -> None:
    """Where a table's game stands goes to the lobby's progress board (ListMyGames reads it
    instead of loading the game); the board keeps the newest version it is given."""
    if to.progress is not None and table_of_game(news.game_id):
        to.progress.post(news.game_id, summarize(news.state, news.deadline_ms))


def announce_bot_turns(news: AtRest, to: Followers) -> None:
    """A turn for each bot that must act in the state."""
    if to.bots is not None:
        to.bots.announce(news.game_id, news.state)


def pace_bot_turns(news: BatchAppended, to: Followers) -> None:
    """A bot's move appended: the launcher paces its publishes by how long it came after the
    state that awaited it."""
    if to.bots is not None and news.bot_waited_ms is not None:
        to.bots.moved(news.bot_waited_ms / 1000)


def stand_in(news: TurnTimerRanOut, to: Followers) -> None:
    """A bot decides for the person whose timer ran out (nothing happens if they decided
    meanwhile: the turn is for that version)."""
    if to.bots is not None:
        to.bots.stand_in(news.game_id, news.seat, news.state)


def record_if_over(news: AtRest, to: Followers) -> None:
    """A game that is over goes to the stats (the feed passes each game on once)."""
    to.finished.announce(news.game_id, news.state)


def close_chat_if_over(news: AtRest, to: Followers) -> None:
    """A game that is over closes its table's chat some time after its last batch
    (services/chat: OPEN_AFTER_GAME_SECONDS); told once per game however often announced."""
    if to.chat is None or news.state.phase is not Phase.GAME_OVER:
        return
    decision = news.decision
    to.chat.game_over(news.game_id, decision.recorded_at_ms if decision is not None else 0)


def tell_players(news: AtRest | TurnTimerRunningOut, to: Followers) -> None:
    """What the state means for the people seated: YourTurn (with its deadline), GameOver, and
    BotTookOver after a stand-in's decision (services/notifications, `game_notifications`)."""
    to.players.announce(news.game_id, news.state, news.decision, deadline_ms=news.deadline_ms)


def tell_players_again(news: AtRest, to: Followers) -> None:
    """The same for a state announced again, maybe long after it was reached: no GameOver
    then (a finished game loaded weeks later)."""
    to.players.announce(
        news.game_id, news.state, news.decision, deadline_ms=news.deadline_ms, again=True
    )


def warn_player(news: TurnTimerRunningOut, to: Followers) -> None:
    """The person at the seat hears that their decision is due soon. After a stand-in's
    decision, the BotTookOver it owed is repeated too (as the looks do): no look at the turn
    comes before a warning."""
    if news.state.seating:
        player_id = news.state.seating[news.seat].player_id
        to.players.timer_running_out(
            player_id, news.game_id, news.seat, news.state.version, news.deadline_ms
        )
    if news.decision is not None and news.decision.turn_timer_expired:
        tell_players(news, to)


#: Every message the game service publishes, and its handlers in the order they act.
HANDLERS: dict[type, tuple[Callable[[Any, Followers], None], ...]] = {
    BatchAppended: (
        record_progress,
        announce_bot_turns,
        pace_bot_turns,
        record_if_over,
        close_chat_if_over,
        tell_players,
    ),
    GameLoaded: (
        record_progress,
        announce_bot_turns,
        record_if_over,
        close_chat_if_over,
        tell_players_again,
    ),
    WatcherArrived: (
        record_progress,
        announce_bot_turns,
        record_if_over,
        close_chat_if_over,
        tell_players_again,
    ),
    TurnTimerRanOut: (stand_in,),
    TurnTimerRunningOut: (warn_player,),
    BotsOverdue: (record_progress, announce_bot_turns, tell_players),
    PersonsTurnLookedAt: (record_progress, tell_players),
    GameOverLookedAt: (record_progress, record_if_over, close_chat_if_over, tell_players),
}


def message_bus(followers: Followers) -> MessageBus:
    """The bus that passes each announcement to its handlers, acting on `followers`."""
    bus = MessageBus()
    for kind, handlers in HANDLERS.items():
        bus.on(kind, *(_acting_on(followers, handler) for handler in handlers))
    return bus


def _acting_on(
    followers: Followers, handler: Callable[[Any, Followers], None]
) -> Callable[[Any], None]:
    return lambda news: handler(news, followers)
