// One game: followed with Watch (WATCH_MODE_EVENTS, grouped: every event, a batch per message,
// the seat's view where each batch ends) and played with SubmitCommand, as docs/CLIENTS.md's
// "Browsers" says. The page never decides what is legal: it highlights the view's legal
// commands and sends what is clicked; a refused click shows the rules' own explanation.
import { useEffect, useRef, useState } from "preact/hooks";
import { auth, explain, game, newId, refusal, sleep } from "./api";
import { Board } from "./board";
import { BuildingSide, House } from "./gen/verrater/v1/cards_pb";
import { Phase, ScoreReason, type GameEvent } from "./gen/verrater/v1/events_pb";
import { WatchMode } from "./gen/verrater/v1/game_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type ConflictSummary, type PlayerView } from "./gen/verrater/v1/view_pb";
import { describe } from "./happenings";
import type { CommandInit } from "./legal";
import { Panels } from "./panels";
import type { Session } from "./session";
import { ACTION, DECISION, HOUSE, PHASE, clock, seatName } from "./words";

const LOG_LINES = 8;

export function GameScreen(props: { session: Session; gameId: string; tableId?: string }) {
  const { session, gameId, tableId } = props;
  const [view, setView] = useState<PlayerView | null>(null);
  const [ruleset, setRuleset] = useState<Ruleset | null>(null);
  const [bonus, setBonus] = useState<Record<number, number>>({});
  const [log, setLog] = useState<string[]>([]);
  const [pause, setPause] = useState<ConflictSummary | null>(null);
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [first, setFirst] = useState<number | null>(null);
  const [buildAt, setBuildAt] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  const latest = useRef<PlayerView | null>(null);

  const token = async (): Promise<string> =>
    tableId ? (await session.seat(tableId)).token : session.token();

  useEffect(() => {
    const stop = new AbortController();
    let version = 0n;
    let shownRound = -1;
    let replayedTo = 0n;
    const take = (next: PlayerView) => {
      const current = latest.current;
      if (current && next.version < current.version) return; // a replayed old view
      const summary = next.lastConflict;
      if (summary && summary.round !== shownRound) {
        shownRound = summary.round;
        if (next.version > replayedTo) setPause(summary);
      }
      latest.current = next;
      setView(next);
    };
    const noteEvent = (event: GameEvent) => {
      const happened = event.event;
      if (happened.case === "pointsAwarded" && happened.value.reason === ScoreReason.TRADING_POSTS) {
        const { seat, points } = happened.value;
        setBonus((old) => ({ ...old, [seat]: (old[seat] ?? 0) + points }));
      }
      const line = latest.current ? describe(event, latest.current) : null;
      if (line) setLog((old) => [...old.slice(-(LOG_LINES - 1)), line]);
    };
    const follow = async () => {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          const bearer = await token();
          if (!latest.current) {
            const [answer, rules] = await Promise.all([
              game.getView({ gameId }, auth(bearer, stop.signal)),
              game.getRuleset({ gameId }, { signal: stop.signal }),
            ]);
            setRuleset(rules.ruleset ?? null);
            replayedTo = answer.view!.version;
            shownRound = answer.view!.lastConflict?.round ?? -1;
            take(answer.view!);
          }
          const stream = game.watch(
            { gameId, fromVersion: version, mode: WatchMode.EVENTS, grouped: true },
            auth(bearer, stop.signal),
          );
          for await (const message of stream) {
            attempt = 0;
            for (const update of message.updates) {
              version = update.version;
              if (update.event) noteEvent(update.event);
              if (update.view) take(update.view);
            }
          }
          return; // the game is over
        } catch (error) {
          if (stop.signal.aborted) return;
          const refused = refusal(error);
          if (["GAME_NOT_FOUND", "INVALID_ID", "NOT_SEATED"].includes(refused.reason)) {
            setProblem(refused.message);
            return;
          }
          if (refused.reason.startsWith("TOKEN_")) {
            session.drop(tableId);
            session.drop();
          }
          await sleep(Math.min(10_000, 300 * 2 ** attempt), stop.signal);
        }
      }
    };
    follow();
    return () => stop.abort();
  }, [gameId, tableId]);

  // A new version: choices made on the old one no longer apply.
  useEffect(() => {
    setSelected([]);
    setFirst(null);
    setBuildAt(null);
  }, [view?.version]);

  const deadline = view?.turn?.deadline;
  useEffect(() => {
    if (!deadline) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [deadline]);

  if (!view) {
    return (
      <section class="panel narrow">
        <p>{problem || "Opening the game…"}</p>
        <a href="#">Back to the lobby</a>
      </section>
    );
  }

  const mine = view.seat !== undefined && view.turn?.seats.includes(view.seat);
  const decision = mine ? view.turn?.decision : undefined;

  const submit = async (command: CommandInit) => {
    setBusy(true);
    setProblem("");
    try {
      await game.submitCommand(
        {
          gameId,
          expectedVersion: view.version,
          commandId: newId(),
          command,
          versionOnly: true,
        },
        auth(await token()),
      );
    } catch (error) {
      setProblem(explain(error));
    } finally {
      setBusy(false);
    }
  };

  const clickLandscape = (position: number) => {
    setProblem("");
    if (decision === DecisionKind.PLACE_FIRST_ESTATE) {
      submit({ command: { case: "placeFirstEstate", value: { position } } });
    } else if (decision === DecisionKind.CHOOSE_CONFLICT) {
      if (first === null) setFirst(position);
      else if (first === position) setFirst(null);
      else submit({ command: { case: "chooseConflict", value: { first, second: position } } });
    } else if (decision === DecisionKind.BUILD) {
      const land = view.ring[position];
      if (land.buildingOwner === view.seat) {
        submit({ command: { case: "flipBuilding", value: { position } } });
      } else if (land.buildingOwner === undefined) {
        setBuildAt(buildAt === position ? null : position);
      } else {
        submit({
          command: { case: "placeBuilding", value: { position, side: BuildingSide.ESTATE } },
        });
      }
    }
  };

  const clockText = deadline
    ? clock(Number(deadline.seconds) * 1000 + deadline.nanos / 1e6 - now)
    : "";
  const over = view.phase === Phase.GAME_OVER;

  return (
    <div
      class="game"
      data-version={String(view.version)}
      data-phase={PHASE[view.phase]}
      data-your-turn={mine ? "true" : "false"}
      data-decision={decision ? DECISION[decision] : ""}
    >
      <StatusLine view={view} clockText={clockText} />
      {problem && (
        <p class="problem" role="alert" data-testid="explanation">
          {problem}
        </p>
      )}
      <div class="table-area">
        <Board
          view={view}
          ruleset={ruleset}
          decision={decision}
          first={first}
          buildAt={buildAt}
          selected={selected}
          busy={busy}
          onLandscape={clickLandscape}
          onBuild={(position, side) =>
            submit({ command: { case: "placeBuilding", value: { position, side } } })
          }
        />
        <Panels
          view={view}
          ruleset={ruleset}
          decision={decision}
          selected={selected}
          busy={busy}
          bonus={bonus}
          log={log}
          onToggleCard={(index) =>
            setSelected((old) =>
              old.includes(index) ? old.filter((i) => i !== index) : [...old, index],
            )
          }
          onSubmit={submit}
        />
      </div>
      {over && <FinalScores view={view} bonus={bonus} />}
      {pause && !over && (
        <ConflictPause
          view={view}
          ruleset={ruleset}
          summary={pause}
          onContinue={() => setPause(null)}
        />
      )}
      <p class="hint">
        Spectators can follow this game at{" "}
        <a href={`#watch/${gameId}`}>{`${window.location.origin}/#watch/${gameId}`}</a>.{" "}
        <a href="#">Back to the lobby</a>
      </p>
    </div>
  );
}

function StatusLine(props: { view: PlayerView; clockText: string }) {
  const { view, clockText } = props;
  const turn = view.turn;
  let what: string;
  if (view.phase === Phase.GAME_OVER) {
    const names = view.winners.map((seat) => seatName(view, seat));
    what =
      names.length > 1 ? `Game over: ${names.join(" and ")} share the win` : `Game over: ${names[0]} wins`;
  } else if (turn?.seats.length && turn.decision) {
    const mine = view.seat !== undefined && turn.seats.includes(view.seat);
    const names = turn.seats.map((seat) => seatName(view, seat));
    what = mine
      ? `Your turn: ${DECISION[turn.decision]}`
      : `${names.join(", ")} must ${DECISION[turn.decision]}`;
  } else {
    what = "The game plays on by itself";
  }
  return (
    <div class="status" role="status" aria-live="polite" data-testid="status">
      <span>
        Round {Math.max(view.round, 1)} of {view.rounds} · {PHASE[view.phase]}
      </span>
      <strong>{what}</strong>
      {clockText && (
        <span class="clock" aria-label={`Time left: ${clockText}`}>
          {clockText} left
        </span>
      )}
    </div>
  );
}

function ConflictPause(props: {
  view: PlayerView;
  ruleset: Ruleset | null;
  summary: ConflictSummary;
  onContinue: () => void;
}) {
  const { view, ruleset, summary } = props;
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), [summary]);
  const winner = summary.winner ? HOUSE[summary.winner] : null;
  const sides = [
    { house: House.EAGLE, strength: summary.eagle },
    { house: House.ROSE, strength: summary.rose },
  ];
  const picks = summary.picks.map((pick) => pick.card);
  // Conquest points, and what the action cards pay whatever the outcome (from the ruleset).
  const points = summary.conquestPoints.map((vp, seat) => {
    const card = picks[seat];
    const spec = card ? ruleset?.actionCards.find((s) => s.card === card) : undefined;
    return { seat, vp: vp + (spec?.victoryPoints ?? 0) };
  }).filter(({ vp }) => vp > 0);
  return (
    <div class="overlay">
      <div
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="pause-title"
        data-testid="conflict-summary"
        onKeyDown={(event) => event.key === "Escape" && props.onContinue()}
      >
        <h2 id="pause-title">
          Conflict of round {summary.round}:{" "}
          {winner ? `${winner} wins` : "a tie"} ({summary.eagleStrength} to {summary.roseStrength})
        </h2>
        <div class="sides">
          {sides.map(({ house, strength }) => (
            <section class={`side house-${HOUSE[house].toLowerCase()}`}>
              <h3>
                {HOUSE[house]}: {strength?.total ?? 0}
              </h3>
              <ul>
                <li>
                  Landscape at {strength ? strength.position : "?"}: {strength?.landscape ?? 0}
                </li>
                {strength?.seats.map((part) => (
                  <li>
                    {seatName(view, part.seat)}: {part.cards}
                  </li>
                ))}
                {strength?.diplomats ? <li>Diplomats: {strength.diplomats}</li> : null}
              </ul>
            </section>
          ))}
        </div>
        <p>
          {summary.traitor !== undefined
            ? `${seatName(view, summary.traitor)} betrayed and changed sides.`
            : "Nobody betrayed."}
        </p>
        <ul>
          {picks.map((card, seat) =>
            card ? (
              <li>
                {seatName(view, seat)} had the {ACTION[card]}
              </li>
            ) : null,
          )}
        </ul>
        <p>
          {points.length
            ? points.map(({ seat, vp }) => `${seatName(view, seat)} wins ${vp} VP`).join("; ")
            : "Nobody won points."}
          {summary.flipped !== undefined ? ` The landscape at ${summary.flipped} changes sides.` : ""}
        </p>
        <button ref={button} onClick={props.onContinue}>
          Continue
        </button>
      </div>
    </div>
  );
}

function FinalScores(props: { view: PlayerView; bonus: Record<number, number> }) {
  const { view, bonus } = props;
  const order = [...view.seats].sort((a, b) => b.vp - a.vp);
  return (
    <section class="panel final" aria-labelledby="final-title" data-testid="final-scores">
      <h2 id="final-title">Final scores</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">VP</th>
            <th scope="col">Trading-post bonus</th>
          </tr>
        </thead>
        <tbody>
          {order.map((seat) => (
            <tr class={view.winners.includes(seat.seat) ? "winner" : ""}>
              <th scope="row">
                {seatName(view, seat.seat)}
                {view.winners.includes(seat.seat) ? " (winner)" : ""}
              </th>
              <td>{seat.vp}</td>
              <td>{bonus[seat.seat] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a href="#">Back to the lobby</a>
      </p>
    </section>
  );
}

