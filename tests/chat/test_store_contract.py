"""The ChatStore contract, the same for both adapters: in memory, on Redis and on a Redis
Cluster. Resuming from a cursor misses and repeats nothing, a follower that falls behind
re-reads, what retention dropped is told as such, a table's keys share its game's slot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest
from redis.crc import key_slot

from services.chat import Channel, ChatStore, InMemoryChat, Rate, RedisChat
from services.chat.model import ORIGIN, NewMessage
from services.errors import Reason, ServiceError
from services.eventstore import RedisEventStore
from services.lobby.model import game_id_of

UNLIMITED = Rate(per_second=1e9, burst=1e9)
TABLE = "0123456789ab"
OTHER = "ba9876543210"
PATIENCE_S = 60.0
#: When the tests' messages are written (Unix ms): a cursor dated in the future is refused.
T0 = int(time.time() * 1000) - 3_600_000


@pytest.fixture
async def make_store(store_url: str | None) -> AsyncIterator[Callable[..., ChatStore]]:
    """Makes stores of one kind (keyword arguments: the adapter's), closed after the test."""
    made: list[ChatStore] = []

    def make(**options: Any) -> ChatStore:
        chat = (
            InMemoryChat(**options)
            if store_url is None
            else RedisChat(store_url, tag_of=game_id_of, **options)
        )
        made.append(chat)
        return chat

    yield make
    for chat in made:
        await chat.close()


@pytest.fixture
def store(make_store: Callable[..., ChatStore]) -> ChatStore:
    """A store that hands a follower at most 4 messages before it re-reads."""
    return make_store(inbox_limit=4)


def _said(n: int, table_id: str = TABLE, channel: Channel = Channel.TABLE) -> NewMessage:
    return NewMessage(table_id, channel, f"p{n % 3}", f"Player {n % 3}", f"m{n}")


async def _append(store: ChatStore, n: int, table_id: str = TABLE) -> None:
    await store.append(_said(n, table_id), UNLIMITED, T0 + n)


async def test_a_follower_resumes_from_a_cursor_with_nothing_missed_or_doubled(
    store: ChatStore,
) -> None:
    for n in range(5):
        await _append(store, n)
    first = await store.read_after(TABLE, ORIGIN, 100)
    assert [m.text for m in first] == [f"m{n}" for n in range(5)]
    received: list[str] = []
    done = asyncio.Event()

    async def follow() -> None:
        async for message in store.follow(TABLE, first[1].position):
            received.append(message.text)
            if message.text == "m39":
                done.set()
                return

    follower = asyncio.create_task(follow())
    for n in range(5, 40):  # written while the follower catches up and goes live
        await _append(store, n)
        if n % 7 == 0:
            await asyncio.sleep(0)
    await asyncio.wait_for(done.wait(), PATIENCE_S)
    await follower
    assert received == [f"m{n}" for n in range(2, 40)]


async def _until(condition: Callable[[], bool]) -> None:
    async def waited() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(waited(), PATIENCE_S)


async def test_a_follower_that_falls_behind_re_reads_and_misses_nothing(store: ChatStore) -> None:
    following = store.follow(TABLE, await store.head(TABLE))
    first = asyncio.ensure_future(anext(following))
    await _until(lambda: store.live_followers == 1)  # live: what comes next is handed over
    await _append(store, 0)
    assert (await asyncio.wait_for(first, PATIENCE_S)).text == "m0"
    for n in range(1, 30):  # more than its inbox holds (4), while it takes none
        await _append(store, n)
    taken = [(await asyncio.wait_for(anext(following), PATIENCE_S)).text for _ in range(29)]
    await following.aclose()
    assert taken == [f"m{n}" for n in range(1, 30)]
    assert store.live_followers == 0


async def test_nothing_written_at_one_table_reaches_another(store: ChatStore) -> None:
    following = store.follow(OTHER, ORIGIN)
    await _append(store, 1)
    await _append(store, 2, OTHER)
    message = await asyncio.wait_for(anext(following), PATIENCE_S)
    await following.aclose()
    assert (message.table_id, message.text) == (OTHER, "m2")
    assert [m.text for m in await store.read_after(OTHER, ORIGIN, 10)] == ["m2"]


async def test_a_cursor_before_what_is_kept_has_expired(
    make_store: Callable[..., ChatStore],
) -> None:
    store = make_store(keep=3)  # about 3 on Redis: whole stream nodes of 100 are trimmed
    for n in range(250):  # past whole stream nodes on Redis
        await _append(store, n)
    kept = await store.latest(TABLE, 500)
    assert 3 <= len(kept) < 250
    assert [m.text for m in kept] == [f"m{n}" for n in range(250 - len(kept), 250)]
    rest = await store.read_after(TABLE, kept[0].position, 500)
    assert rest == kept[1:]
    with pytest.raises(ServiceError) as expired:
        await store.read_after(TABLE, (T0 + 1, 0), 10)
    assert expired.value.reason is Reason.CURSOR_EXPIRED
    with pytest.raises(ServiceError) as beyond:
        await store.read_after(TABLE, (T0 + 999, 0), 10)
    assert beyond.value.reason is Reason.MALFORMED_REQUEST
    with pytest.raises(ServiceError) as nothing_kept:
        await store.read_after(OTHER, (T0, 0), 10)
    assert nothing_kept.value.reason is Reason.CURSOR_EXPIRED


async def test_the_table_rate_is_spent_in_the_store(store: ChatStore) -> None:
    rate = Rate(per_second=1, burst=2)
    now = T0
    await store.append(_said(0), rate, now)
    await store.append(_said(1), rate, now)
    with pytest.raises(ServiceError) as limited:
        await store.append(_said(2), rate, now + 10)
    assert limited.value.reason is Reason.RATE_LIMITED
    assert limited.value.metadata["scope"] == "table"
    assert int(limited.value.metadata["retry_after_ms"]) == 991
    await store.append(_said(3), rate, now + 1000)
    assert [m.text for m in await store.read_after(TABLE, ORIGIN, 10)] == ["m0", "m1", "m3"]


async def test_a_request_id_stores_one_message_however_often_it_is_sent(
    store: ChatStore,
) -> None:
    rate = Rate(per_second=1, burst=1)
    first = replace(_said(0), request_id="say-1")
    stored = await store.append(first, rate, T0)
    # The retry finds its first copy (the table's rate, spent, is not asked again).
    assert await store.append(first, rate, T0 + 10) == stored
    assert await store.stored_request(first) == stored
    assert [m.text for m in await store.read_after(TABLE, ORIGIN, 10)] == ["m0"]
    with pytest.raises(ServiceError) as reused:
        await store.append(replace(first, text="another"), rate, T0 + 2000)
    assert reused.value.reason is Reason.REQUEST_ID_REUSED
    # The id is the sender's at the table: another sender's is another message.
    other = replace(first, sender_id="p9")
    assert await store.stored_request(other) is None
    assert (await store.append(other, rate, T0 + 2000)).position > stored.position


async def test_mutes_reports_and_the_games_end_are_kept(store: ChatStore) -> None:
    assert await store.ended_at(TABLE) is None
    await store.game_ended(TABLE, 5)
    await store.game_ended(TABLE, 9)  # told again later: the first end stands
    assert await store.ended_at(TABLE) == 5
    assert await store.set_muted("a", "b", True, 2) == {"b"}
    assert await store.set_muted("a", "c", True, 2) == {"b", "c"}
    with pytest.raises(ServiceError) as too_many:
        await store.set_muted("a", "d", True, 2)
    assert too_many.value.reason is Reason.TOO_MANY_MUTED
    assert await store.set_muted("a", "b", False, 2) == {"c"}
    assert await store.mutes("a") == {"c"} and await store.mutes("c") == frozenset()
    message = await store.append(_said(7), UNLIMITED, T0)
    first = await store.add_report("r", "rude", message, 1_800_000_000_500)
    assert await store.add_report("r", "again", message, 1_800_000_000_600) == first
    other = await store.add_report("s", "", message, 1_800_000_000_700)
    assert await store.reports() == [first, other]
    assert await store.reports(first.report_id) == [other]
    assert (first.reporter_id, first.note, first.message) == ("r", "rude", message)


def test_a_tables_chat_keys_sit_in_its_games_slot_beside_its_log() -> None:
    chat = RedisChat("redis://127.0.0.1:1", tag_of=game_id_of)
    events = RedisEventStore.__new__(RedisEventStore)
    events.key_prefix = "verrater"
    log = events.stream_key(game_id_of(TABLE))
    assert chat.chat_key(TABLE) != log
    assert key_slot(chat.chat_key(TABLE).encode()) == key_slot(log.encode())
    assert chat.chat_key(TABLE).startswith("verrater:{g0123456789ab}:")


async def test_a_follower_that_stops_taking_messages_is_cut_off_as_a_slow_reader(
    store: ChatStore,
) -> None:
    cut: list[ServiceError] = []
    following = store.follow(
        TABLE, await store.head(TABLE), max_waiting=4, stall_limit=0.0, on_cut=cut.append
    )
    first = asyncio.ensure_future(anext(following))
    await _until(lambda: store.live_followers == 1)
    await _append(store, 0)
    assert (await asyncio.wait_for(first, PATIENCE_S)).text == "m0"
    for n in range(1, 20):  # while its consumer holds m0 and takes nothing more
        await _append(store, n)
    await _until(lambda: bool(cut))
    assert cut[0].reason is Reason.SLOW_READER
    with pytest.raises(ServiceError) as ended:
        while True:
            await asyncio.wait_for(anext(following), PATIENCE_S)
    assert ended.value.reason is Reason.SLOW_READER
    assert store.live_followers == 0
