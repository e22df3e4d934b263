"""services/mailbox.py: a fan-out hands each item to every follower in order, a slice of
followers per turn of the event loop, so other work of the process goes between."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from services.errors import Reason, ServiceError
from services.mailbox import FanOut, Mailbox, Position


@dataclass(frozen=True)
class Said:
    position: Position


def _slow(limit: int) -> ServiceError:
    return ServiceError(Reason.SLOW_READER, f"more than {limit} waited")


def _followers(count: int) -> list[Mailbox[Said]]:
    return [Mailbox("stream", (0, 0), 8, slow=_slow) for _ in range(count)]


async def test_a_fan_out_reaches_a_slice_of_followers_per_turn_of_the_loop() -> None:
    fan: FanOut[Said] = FanOut(slice_size=2)
    followers = _followers(5)
    fan.mailboxes.update(followers)
    fan.publish([Said((1, 0))])
    reached = []
    for _ in range(3):
        await asyncio.sleep(0)  # one turn of the loop: the fan-out's task takes its next slice
        reached.append(sum(1 for mailbox in followers if mailbox.inbox))
    assert reached == [2, 4, 5]


async def test_every_follower_gets_every_item_in_order() -> None:
    fan: FanOut[Said] = FanOut(slice_size=2)
    followers = _followers(5)
    fan.mailboxes.update(followers)
    fan.publish([Said((1, 0)), Said((1, 1))])
    fan.publish([Said((2, 0))])
    await fan.settled()
    assert all(
        [item.position for item in mailbox.inbox] == [(1, 0), (1, 1), (2, 0)]
        for mailbox in followers
    )


async def test_a_follower_that_failed_leaves_the_fan_out() -> None:
    fan: FanOut[Said] = FanOut(slice_size=2)
    gone, staying = _followers(2)
    fan.mailboxes.update((gone, staying))
    gone.fail(_slow(8))
    fan.publish([Said((1, 0))])
    await fan.settled()
    assert fan.mailboxes == {staying}
    assert not gone.inbox and len(staying.inbox) == 1
