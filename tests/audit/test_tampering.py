"""Every way of tampering with a finished game's log is caught, with a finding that says where."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.audit import AuditReport, Finding, FindingKind, audit
from services.audit.export import LogEntry
from services.codec import decode_record, encode_record
from services.engine import House
from services.engine.events import (
    ActionCardsDealt,
    ConflictResolved,
    DiscardPileReshuffled,
    Event,
    FirstEstatePlaced,
    GameCreated,
    GameEnded,
    PointsAwarded,
    RingLaidOut,
    StartPlayerChosen,
    SupplyDealt,
    SupplyPlayed,
)

from .logs import (
    chained,
    edited,
    events_of,
    index_of,
    payloads_of,
    random_log,
    rehashed,
    stored_log,
    with_event,
)


def _findings(report: AuditReport, kind: FindingKind) -> list[Finding]:
    return [finding for finding in report.findings if finding.kind is kind]


def _only_finding(report: AuditReport, kind: FindingKind) -> Finding:
    found = _findings(report, kind)
    assert len(found) == 1, report.summary()
    return found[0]


def test_an_edited_event_with_the_chain_recomputed_is_caught_by_the_replay() -> None:
    entries = random_log(11)
    at = index_of(entries, ConflictResolved)
    resolved = events_of(entries)[at]
    assert isinstance(resolved, ConflictResolved)
    forged = edited(entries, at, replace(resolved, eagle_strength=resolved.eagle_strength + 1))
    report = audit(forged)
    assert {finding.kind for finding in report.findings} == {FindingKind.REPLAY}
    finding = _only_finding(report, FindingKind.REPLAY)
    assert finding.version == at + 1
    assert "ConflictResolved" in finding.message
    assert "eagle_strength" in finding.message


def test_an_edited_event_without_rehashing_breaks_the_chain_at_that_event() -> None:
    entries = random_log(12)
    at = index_of(entries, SupplyPlayed, lambda e: isinstance(e, SupplyPlayed) and bool(e.cards))
    played = events_of(entries)[at]
    assert isinstance(played, SupplyPlayed)
    forged = list(entries)
    forged[at] = replace(entries[at], payload=with_event(entries, at, replace(played, cards=())))
    report = audit(forged)
    finding = _only_finding(report, FindingKind.CHAIN)
    assert finding.version == at + 1
    assert "edited" in finding.message


def test_a_removed_event_breaks_the_chain_where_it_is_missing() -> None:
    entries = random_log(13)
    at = index_of(entries, PointsAwarded)
    report = audit(entries[:at] + entries[at + 1 :])
    chain = _findings(report, FindingKind.CHAIN)
    assert chain and all(finding.version == at + 2 for finding in chain)
    assert any("1 event(s) missing" in finding.message for finding in chain)
    assert any("removed" in finding.message for finding in chain)


def test_a_removed_event_with_the_chain_renumbered_and_rehashed_is_caught_by_the_replay() -> None:
    entries = random_log(13)
    at = index_of(entries, PointsAwarded)
    payloads = payloads_of(entries)
    del payloads[at]
    report = audit(rehashed(payloads))
    assert not _findings(report, FindingKind.CHAIN)
    finding = _findings(report, FindingKind.REPLAY)[0]
    assert finding.version == at + 1
    assert "PointsAwarded" in finding.message


def _swap_supply_deck(event: Event) -> Event:
    assert isinstance(event, SupplyDealt) and event.deck is not None
    deck = list(event.deck)
    other = next(i for i, card in enumerate(deck) if card != deck[0])
    deck[0], deck[other] = deck[other], deck[0]
    return replace(event, deck=tuple(deck))


def _swap_ring(event: Event) -> Event:
    assert isinstance(event, RingLaidOut)
    ring = list(event.landscapes)
    ring[0], ring[1] = ring[1], ring[0]
    return replace(event, landscapes=tuple(ring))


def _swap_deal(event: Event) -> Event:
    assert isinstance(event, ActionCardsDealt)
    assert event.set_aside is not None and event.offered is not None
    offered = (event.set_aside, *event.offered[1:])
    return replace(event, set_aside=event.offered[0], offered=offered)


def _swap_reshuffle(event: Event) -> Event:
    assert isinstance(event, DiscardPileReshuffled) and event.order is not None
    order = list(event.order)
    other = next(i for i, card in enumerate(order) if card != order[0])
    order[0], order[other] = order[other], order[0]
    return replace(event, order=tuple(order))


def _other_start_player(event: Event) -> Event:
    assert isinstance(event, StartPlayerChosen)
    seat = (event.seat + 1) % len(event.allegiances)
    houses = tuple(House(1 - house) for house in event.allegiances)
    return replace(event, seat=seat, allegiances=houses)


@pytest.mark.parametrize(
    ("kind", "swap", "what"),
    [
        (StartPlayerChosen, _other_start_player, "start player"),
        (RingLaidOut, _swap_ring, "ring"),
        (SupplyDealt, _swap_supply_deck, "supply deck"),
        (ActionCardsDealt, _swap_deal, "action card deal of round 1"),
        (DiscardPileReshuffled, _swap_reshuffle, "reshuffled draw pile (reshuffle:0)"),
    ],
)
def test_a_swapped_shuffle_outcome_is_not_the_one_the_seed_gives(
    kind: type, swap: object, what: str
) -> None:
    entries = next(
        log
        for log in (random_log(seed) for seed in range(40))
        if any(isinstance(event, kind) for event in events_of(log))
    )
    at = index_of(entries, kind)
    assert callable(swap)
    report = audit(edited(entries, at, swap(events_of(entries)[at])))
    finding = _only_finding(report, FindingKind.FAIRNESS)
    assert finding.version == at + 1
    assert f"the {what} is not the one the seed gives" in finding.message
    assert not _findings(report, FindingKind.CHAIN)
    assert _findings(report, FindingKind.REPLAY)[0].version == at + 1


def test_a_wrong_point_award_is_caught_by_the_replay_and_the_final_count() -> None:
    entries = random_log(14)
    at = index_of(entries, PointsAwarded)
    award = events_of(entries)[at]
    assert isinstance(award, PointsAwarded)
    report = audit(edited(entries, at, replace(award, points=award.points + 5)))
    finding = _only_finding(report, FindingKind.REPLAY)
    assert finding.version == at + 1
    assert "points is" in finding.message
    result = _only_finding(report, FindingKind.RESULT)
    assert f"seat {award.seat} ends with" in result.message


def test_a_changed_seed_does_not_match_the_commitment() -> None:
    entries = random_log(15)
    last = len(entries) - 1
    ended = events_of(entries)[last]
    assert isinstance(ended, GameEnded)
    other_seed = bytes([ended.seed[0] ^ 1]) + ended.seed[1:]
    report = audit(edited(entries, last, replace(ended, seed=other_seed)))
    fairness = _findings(report, FindingKind.FAIRNESS)
    assert any(
        finding.version == last + 1 and "does not match the commitment" in finding.message
        for finding in fairness
    )
    assert any(
        finding.version == 1 and "is not the revealed seed" in finding.message
        for finding in fairness
    )
    assert len(fairness) == 2, "the shuffles are checked against the committed seed only"
    assert _only_finding(report, FindingKind.REPLAY).version == last + 1


def test_a_seed_replaced_everywhere_but_in_the_commitment_is_caught() -> None:
    entries = random_log(15)
    events = events_of(entries)
    created, ended = events[0], events[-1]
    assert isinstance(created, GameCreated) and isinstance(ended, GameEnded)
    other_seed = bytes(32)
    payloads = payloads_of(entries)
    payloads[0] = with_event(entries, 0, replace(created, seed=other_seed))
    payloads[-1] = with_event(entries, len(entries) - 1, replace(ended, seed=other_seed))
    report = audit(rehashed(payloads))
    messages = [finding.message for finding in _findings(report, FindingKind.FAIRNESS)]
    assert any("does not match the commitment" in message for message in messages)
    assert any("no seed in the log matches the commitment" in message for message in messages)
    assert _findings(report, FindingKind.REPLAY)


def test_an_illegal_decision_inserted_with_a_valid_chain_is_caught() -> None:
    entries = random_log(16)
    events = events_of(entries)
    at = index_of(entries, FirstEstatePlaced)
    first = events[at]
    assert isinstance(first, FirstEstatePlaced)
    taken = {event.position for event in events if isinstance(event, FirstEstatePlaced)}
    free = next(position for position in range(12) if position not in taken)
    # The same seat places a second first estate: it is no longer its turn.
    again = encode_record(
        decode_record(entries[at].payload)._replace(event=replace(first, position=free))
    )
    payloads = payloads_of(entries)
    payloads.insert(at + 1, again)
    report = audit(rehashed(payloads))
    assert not _findings(report, FindingKind.CHAIN)
    finding = _only_finding(report, FindingKind.REPLAY)
    assert finding.version == at + 2
    assert "illegal: FirstEstatePlaced" in finding.message
    assert "NOT_YOUR_TURN" in finding.message


def test_a_decision_playing_cards_the_seat_does_not_hold_is_illegal() -> None:
    entries = random_log(17)
    at = index_of(entries, SupplyPlayed)
    played = events_of(entries)[at]
    assert isinstance(played, SupplyPlayed)
    report = audit(edited(entries, at, replace(played, cards=(8, 8))))
    finding = _only_finding(report, FindingKind.REPLAY)
    assert finding.version == at + 1
    assert "CARD_NOT_IN_HAND" in finding.message


def test_an_event_appended_after_the_end_is_caught() -> None:
    entries = random_log(18)
    events = events_of(entries)
    report = audit(stored_log([*events, events[-2]]))
    assert "follow the end of the game" in _only_finding(report, FindingKind.RESULT).message
    assert _only_finding(report, FindingKind.REPLAY).version == len(entries) + 1


def test_a_payload_with_unknown_fields_is_not_canonical() -> None:
    entries = random_log(19)
    payloads = payloads_of(entries)
    payloads[3] += bytes([0xF8, 0x3E, 0x01])  # field 999, varint 1: unknown to the schema
    report = audit(chained(payloads))
    finding = _only_finding(report, FindingKind.FORMAT)
    assert finding.version == 4
    assert "canonical" in finding.message


def test_bytes_that_are_no_event_are_a_format_finding() -> None:
    entries = random_log(20)
    payloads = payloads_of(entries)
    payloads[5] = b"\xff\xff\xff"
    report = audit(chained(payloads))
    finding = _only_finding(report, FindingKind.FORMAT)
    assert finding.version == 6
    assert not report.replayed


def test_an_export_line_whose_json_misstates_its_payload_is_a_format_finding() -> None:
    entries = random_log(21)
    from services.audit.export import event_json

    claimed = event_json(entries[6].payload)
    assert claimed is not None
    claimed = {**claimed, "seat": claimed.get("seat", 0) + 1}
    forged: list[LogEntry] = list(entries)
    forged[6] = replace(entries[6], claimed_event=claimed)
    report = audit(forged)
    finding = _only_finding(report, FindingKind.FORMAT)
    assert finding.version == 7
    assert "payload is authoritative" in finding.message


def test_a_forged_ruleset_no_game_can_be_played_with_is_a_finding_not_a_crash() -> None:
    entries = random_log(22)
    created = events_of(entries)[0]
    assert isinstance(created, GameCreated)
    forged = edited(entries, 0, replace(created, ruleset=replace(created.ruleset, players=0)))
    report = audit(forged)
    assert _findings(report, FindingKind.REPLAY)[0].version == 1
    assert _findings(report, FindingKind.FAIRNESS)
