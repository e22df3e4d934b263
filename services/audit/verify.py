"""The audit of a finished game's log: was it stored intact, dealt fairly, played by the rules?

Four independent checks, each reporting `Finding`s at the version where something is wrong:

- chain: every link of the hash chain holds (docs/LOG_FORMAT.md, "Hash chain");
- fairness: the revealed seed matches the commitment of the first event, and every recorded
  shuffle outcome is the one the seed gives (`fairness`, independent of the engine);
- replay: every decision is legal, and the rules engine, given the same decisions, produces
  exactly the logged events, batch by batch;
- result: the final scores add up, the winners have the most VP, and the game is over.

The ruleset comes from the log's first event, so a game played with another card table is
audited with that table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

from services.codec import MalformedMessage, Record, decode_record, encode_record
from services.engine import (
    ActionCardPicked,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildPassed,
    CardsDiscarded,
    ChooseConflict,
    ConflictChosen,
    CreateGame,
    DiscardCards,
    Event,
    FirstEstatePlaced,
    FlipBuilding,
    GameCreated,
    GameEnded,
    GameState,
    MoveBuilding,
    PassBuild,
    Phase,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
    PointsAwarded,
    Ruleset,
    RuleViolation,
    SupplyPlayed,
    deciding_seat,
    execute,
    initial_state,
)
from services.eventstore import GENESIS_HASH, chain_hash

from .export import LogEntry, event_json
from .fairness import Fairness
from .findings import Finding, FindingKind, describe, plain, shorten
from .story import seat_names, who

_HEX_HASH = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What the audit checked and what it found; `ok` when it found nothing."""

    findings: tuple[Finding, ...]
    events: int
    head: str
    ruleset: Ruleset | None = None
    seed_commitment: str = ""
    seed: bytes | None = None
    shuffles: int = 0
    explicit: tuple[str, ...] = ()
    decisions: int = 0
    replayed: bool = False
    final_vp: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    names: tuple[str, ...] = ()  # who sat where (the first event's seats)

    @property
    def ok(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        """A few lines for people: what was checked, the result, and every finding."""
        lines = [f"events      {self.events} (head hash {self.head or '-'})"]
        if self.ruleset is not None:
            rules = self.ruleset
            variant = ", builder may move" if rules.builder_may_move else ""
            lines.append(
                f"ruleset     {rules.players} players, {rules.rounds} rounds, "
                f"card table {rules.card_table.name!r}{variant}"
            )
        if self.seed_commitment:
            lines.append(
                f"commitment  {self.seed_commitment} (compare: your client showed it at the start)"
            )
        if self.seed is not None:
            lines.append(f"seed        {self.seed.hex()}")
        lines.append(f"shuffles    {self.shuffles} recomputed from the seed")
        if self.explicit:
            lines.append(f"fixed setup {', '.join(self.explicit)} (set by hand, not by the seed)")
        replay = "complete" if self.replayed else "stopped early"
        lines.append(f"decisions   {self.decisions} replayed under the rules ({replay})")
        if self.final_vp is not None:
            names = self.names
            scores = ", ".join(f"{who(names, seat)}: {vp}" for seat, vp in enumerate(self.final_vp))
            winners = " and ".join(who(names, seat) for seat in self.winners)
            lines.append(f"result      {scores}; winner {winners}")
        if self.ok:
            lines.append("verdict     CLEAN: intact, provably fair, played by the rules")
        else:
            lines.append(f"verdict     {len(self.findings)} FINDING(S)")
            lines.extend(f"  {finding}" for finding in self.findings)
        return "\n".join(lines)


def audit(entries: Sequence[LogEntry]) -> AuditReport:
    """Audit a game's complete log (first event first)."""
    if not entries:
        return AuditReport((Finding(0, FindingKind.FORMAT, "the log is empty"),), 0, "")
    findings = check_chain(entries)
    records, format_findings = _decode(entries)
    findings.extend(format_findings)
    head = entries[-1].hash
    if records is None:
        return AuditReport(tuple(findings), len(entries), head)
    events = [record.event for record in records]
    versions = [entry.version for entry in entries]
    created = events[0] if isinstance(events[0], GameCreated) else None
    ended = next((event for event in events if isinstance(event, GameEnded)), None)
    fairness = Fairness(events, versions)
    replay = _Replay(events, versions)
    findings.extend(fairness.findings)
    findings.extend(replay.findings)
    findings.extend(_check_result(events, versions, replay.state))
    return AuditReport(
        findings=tuple(findings),
        events=len(entries),
        head=head,
        ruleset=created.ruleset if created is not None else None,
        seed_commitment=created.seed_commitment if created is not None else "",
        seed=ended.seed if ended is not None else None,
        shuffles=fairness.checked,
        explicit=fairness.explicit,
        decisions=replay.decisions,
        replayed=replay.state is not None,
        final_vp=ended.final_vp if ended is not None else None,
        winners=ended.winners if ended is not None else (),
        names=seat_names(events),
    )


# --- chain -----------------------------------------------------------------------------------


def check_chain(entries: Sequence[LogEntry]) -> list[Finding]:
    """Every link: versions count 1, 2, 3...; each prev_hash is the hash before it (genesis
    first); each hash is sha256(prev_hash bytes + payload)."""
    findings: list[Finding] = []
    previous_version, previous_hash = 0, GENESIS_HASH
    for entry in entries:
        version = entry.version
        problems: list[str] = []
        if version != previous_version + 1:
            missing = version - previous_version - 1
            what = f"{missing} event(s) missing" if missing > 0 else "out of order or repeated"
            problems.append(f"version {version} follows version {previous_version}: {what}")
        if entry.prev_hash != previous_hash:
            problems.append(
                f"prev_hash {entry.prev_hash[:16]}… is not the hash of the event before it "
                f"({previous_hash[:16]}…): an event before it was removed, inserted or rewritten"
            )
        if not _HEX_HASH.match(entry.prev_hash) or not _HEX_HASH.match(entry.hash):
            problems.append("prev_hash and hash must be 64 lowercase hex digits")
        elif entry.hash != chain_hash(entry.prev_hash, entry.payload):
            problems.append("the payload does not hash to the recorded hash: the event was edited")
        findings.extend(Finding(version, FindingKind.CHAIN, problem) for problem in problems)
        previous_version, previous_hash = version, entry.hash
    return findings


# --- decoding ------------------------------------------------------------------------------


def _decode(entries: Sequence[LogEntry]) -> tuple[list[Record] | None, list[Finding]]:
    """Every payload's record (None if any cannot be read) and what is wrong with the bytes."""
    findings: list[Finding] = []
    records: list[Record] = []
    for entry in entries:
        problems: list[str] = []
        try:
            record = decode_record(entry.payload)
        except MalformedMessage as error:
            problems.append(f"the payload is not an event this auditor can read: {error}")
        else:
            records.append(record)
            if encode_record(record) != entry.payload:
                problems.append(
                    "the payload is not the canonical encoding of its event "
                    "(it carries fields this auditor does not know, or was re-encoded)"
                )
            stated = entry.claimed_event
            if stated is not None and stated != event_json(entry.payload):
                problems.append(
                    "the export line's event JSON says something other than its payload "
                    f"(the payload is authoritative): {shorten(str(event_json(entry.payload)))}"
                )
        findings.extend(Finding(entry.version, FindingKind.FORMAT, problem) for problem in problems)
    return (records if len(records) == len(entries) else None), findings


# --- replay --------------------------------------------------------------------------------


def command_of(event: Event) -> PlayerCommand | None:
    """The player command a decision event records; None for an automatic event."""
    match event:
        case FirstEstatePlaced():
            return PlaceFirstEstate(event.seat, event.position)
        case ConflictChosen():
            return ChooseConflict(event.seat, event.first, event.second)
        case ActionCardPicked() if event.card is not None:
            return PickActionCard(event.seat, event.card)
        case SupplyPlayed():
            return PlaySupply(event.seat, event.cards)
        case BuildingPlaced():
            return PlaceBuilding(event.seat, event.position, event.side)
        case BuildingFlipped():
            return FlipBuilding(event.seat, event.position)
        case BuildingMoved():
            return MoveBuilding(event.seat, event.origin, event.destination, event.side)
        case BuildPassed():
            return PassBuild(event.seat)
        case CardsDiscarded():
            return DiscardCards(event.seat, event.cards)
        case _:
            return None


def batches(events: Sequence[Event]) -> list[range]:
    """The log cut into batches: each starts at a decision event (the first at the log's start)
    and holds the automatic events up to the next decision, as one command appended them."""
    starts = [0] + [
        i for i, event in enumerate(events) if i > 0 and deciding_seat(event) is not None
    ]
    ends = starts[1:] + [len(events)]
    return [range(start, end) for start, end in zip(starts, ends, strict=True)]


class _Replay:
    """Feed the logged decisions to the rules and compare what they produce with the log.

    A decision is checked by `execute` itself rather than by membership in `legal_commands`:
    that list names each conflict once, in one orientation, while the rules accept both. The
    replay stops at the first difference (`state` None): past it the two histories differ and
    every later comparison would only repeat the first finding.
    """

    def __init__(self, events: Sequence[Event], versions: Sequence[int]) -> None:
        self.findings: list[Finding] = []
        self.decisions = 0
        self.state: GameState | None = None
        self._versions = versions
        created = events[0]
        if not isinstance(created, GameCreated):
            self._stop(0, f"the log begins with {describe(created)}, not with GameCreated")
            return
        ended = next((event for event in events if isinstance(event, GameEnded)), None)
        seed = created.seed if created.seed is not None else ended.seed if ended else b""
        state = initial_state()
        for batch in batches(events):
            logged = [events[i] for i in batch]
            if batch.start == 0:
                command: CreateGame | PlayerCommand | None = CreateGame(
                    ruleset=created.ruleset,
                    seed=seed,
                    setup=created.setup,
                    seats=created.seats,
                    ranked=created.ranked,
                    turn_seconds=created.turn_seconds,
                )
            else:
                command = command_of(logged[0])
            if command is None:
                self._stop(
                    batch.start, f"{describe(logged[0])} hides what was decided (a redacted copy?)"
                )
                return
            try:
                produced, after = execute(state, command)
            except RuleViolation as violation:
                what = "the game cannot be created as" if batch.start == 0 else "illegal:"
                self._stop(
                    batch.start,
                    f"{what} {describe(logged[0])} ({violation.code}: {violation.message})",
                )
                return
            except Exception as error:  # a forged log can lead the engine where no game goes
                self._stop(
                    batch.start,
                    f"the rules cannot replay {describe(logged[0])} "
                    f"({type(error).__name__}: {error})",
                )
                return
            difference = _first_difference(logged, produced)
            if difference is not None:
                offset, message = difference
                self._stop(batch.start + offset, message)
                return
            if batch.start > 0:
                self.decisions += 1
            state = after
        self.state = state

    def _stop(self, index: int, message: str) -> None:
        version = self._versions[min(index, len(self._versions) - 1)]
        self.findings.append(
            Finding(version, FindingKind.REPLAY, f"{message} (the replay stops here)")
        )


def _first_difference(logged: Sequence[Event], produced: Sequence[Event]) -> tuple[int, str] | None:
    """Where the logged batch first differs from what the rules produce, and how."""
    for offset, (have, want) in enumerate(zip(logged, produced, strict=False)):
        if have == want:
            continue
        if type(have) is not type(want):
            return offset, f"the log has {describe(have)} where the rules give {describe(want)}"
        changes = "; ".join(
            f"{name} is {plain(getattr(have, name))} in the log, "
            f"the rules give {plain(getattr(want, name))}"
            for name in (item.name for item in fields(have))
            if getattr(have, name) != getattr(want, name)
        )
        return offset, f"{type(have).__name__}: {changes}"
    if len(logged) > len(produced):
        extra = logged[len(produced)]
        return len(produced), f"the log has {describe(extra)}, which the rules do not produce"
    if len(produced) > len(logged):
        missing = produced[len(logged)]
        return len(logged) - 1, f"the log lacks {describe(missing)}, which the rules produce next"
    return None


# --- result --------------------------------------------------------------------------------


def _check_result(
    events: Sequence[Event], versions: Sequence[int], replayed: GameState | None
) -> list[Finding]:
    """The game is over, the final VP add up the awarded points, the winners lead."""
    findings: list[Finding] = []

    def wrong(index: int, message: str) -> None:
        findings.append(Finding(versions[index], FindingKind.RESULT, message))

    end = next((i for i, event in enumerate(events) if isinstance(event, GameEnded)), None)
    if end is None:
        wrong(len(events) - 1, "the log ends without GameEnded: the game is not over")
        return findings
    ended = events[end]
    assert isinstance(ended, GameEnded)
    if end != len(events) - 1:
        wrong(end, f"{len(events) - 1 - end} event(s) follow the end of the game")
    awarded = [0] * len(ended.final_vp)
    for event in events[:end]:
        if isinstance(event, PointsAwarded) and 0 <= event.seat < len(awarded):
            awarded[event.seat] += event.points
    for seat, (total, final) in enumerate(zip(awarded, ended.final_vp, strict=True)):
        if total != final:
            wrong(
                end,
                f"{who(seat_names(events), seat)} ends with {final} VP, but the log awards "
                f"{total} in all",
            )
    best = max(ended.final_vp, default=0)
    leaders = tuple(seat for seat, vp in enumerate(ended.final_vp) if vp == best)
    if ended.winners != leaders:
        wrong(end, f"the winners are {list(ended.winners)}, but the most VP are {list(leaders)}'s")
    if replayed is not None:
        if replayed.phase is not Phase.GAME_OVER:
            wrong(end, f"after the replay the game is in the {replayed.phase.name} phase, not over")
        elif replayed.vp != ended.final_vp:
            wrong(end, f"the replay scores {list(replayed.vp)}, the log {list(ended.final_vp)}")
    return findings
