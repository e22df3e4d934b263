"""A message bus: each message goes to the handlers registered for its type, in order.

A message is a value saying what happened (services/game/announcements.py); whoever publishes
it knows nothing of who handles it, and the handlers are registered in one place
(services/handlers.py). Handlers run in the publisher's call, one after the other, so that
publishing is cheap and what follows a change happens before the next change of the same game
(the game service publishes under the game's lock). So a handler never waits: one whose work
needs the network hands it to a queue or a task of its own. A handler's exception reaches the
publisher, and the handlers after it do not run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

Message = TypeVar("Message")


class MessageBus:
    """Handlers by message type; `handle` is what publishers are given."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Any], None]]] = {}

    def on(self, kind: type[Message], *handlers: Callable[[Message], None]) -> None:
        """Have `handlers` act on every message of type `kind` (exactly that type, not its
        subclasses), in this order, after those registered for it before."""
        self._handlers.setdefault(kind, []).extend(handlers)

    def handle(self, message: object) -> None:
        """Pass `message` to each of its type's handlers, in order (none: nothing happens)."""
        for handler in self._handlers.get(type(message), ()):
            handler(message)
