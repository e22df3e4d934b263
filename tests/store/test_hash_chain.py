"""The hash chain is a public format: auditors recompute it from this rule alone."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from services.eventstore import GENESIS_HASH, StoredEvent, chain_hash, verify_chain
from services.eventstore.base import chain_events


def test_genesis_is_thirty_two_zero_bytes() -> None:
    assert GENESIS_HASH == "0" * 64
    assert bytes.fromhex(GENESIS_HASH) == bytes(32)


def test_an_event_hash_is_sha256_of_the_previous_hash_bytes_and_the_payload() -> None:
    first = chain_hash(GENESIS_HASH, b"deal")
    second = chain_hash(first, b"bid")

    assert first == hashlib.sha256(bytes(32) + b"deal").hexdigest()
    assert second == hashlib.sha256(bytes.fromhex(first) + b"bid").hexdigest()


def _log(count: int) -> list[StoredEvent]:
    return chain_events("g", 0, GENESIS_HASH, [f"event {n}".encode() for n in range(count)])


def test_an_intact_log_verifies() -> None:
    assert verify_chain(_log(5)) is None
    assert verify_chain([]) is None


def test_a_log_that_does_not_start_at_genesis_is_broken_at_version_one() -> None:
    assert verify_chain(_log(5)[1:]) == 1


def test_swapped_events_break_the_chain_where_the_swap_starts() -> None:
    log = _log(5)
    log[2], log[3] = log[3], log[2]

    assert verify_chain(log) == 3


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link() -> None:
    log = _log(5)
    forged_payload = b"event 1 (forged)"
    log[1] = log[1]._replace(
        payload=forged_payload, hash=chain_hash(log[1].prev_hash, forged_payload)
    )

    assert verify_chain(log) == 3


def test_a_tail_verifies_against_the_head_it_continues() -> None:
    log = _log(6)
    head = (log[2].version, log[2].hash)

    assert verify_chain(log[3:], after=head) is None
    assert verify_chain(log[4:], after=head) == 4


@given(
    payloads=st.lists(st.binary(max_size=40), min_size=1, max_size=12),
    data=st.data(),
)
def test_any_changed_payload_is_reported_at_its_own_version(
    payloads: list[bytes], data: st.DataObject
) -> None:
    log = chain_events("g", 0, GENESIS_HASH, payloads)
    index = data.draw(st.integers(0, len(log) - 1), label="edited event")
    edited = data.draw(st.binary(max_size=40).filter(lambda p: p != payloads[index]))

    log[index] = log[index]._replace(payload=edited)

    assert verify_chain(log) == index + 1
