// One game: followed with Watch (WATCH_MODE_EVENTS, grouped: every event, a batch per message,
// the seat's view where each batch ends) and played with SubmitCommand, as docs/CLIENTS.md's
// "Browsers" says. The page never decides what is legal: it highlights the view's legal
// commands and sends what is chosen; a refused choice is explained from the refusal's reason.
import { useEffect, useRef, useState } from "preact/hooks";
import { auth, explain, game, newId, refusal, sleep } from "./api";
import { Board } from "./board";
import { Chat } from "./chat";
import { ConflictDialog } from "./conflict";
import { BuildingSide } from "./gen/verrater/v1/cards_pb";
import { Phase, ScoreReason, type GameEvent } from "./gen/verrater/v1/events_pb";
import { WatchMode } from "./gen/verrater/v1/game_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type ConflictSummary, type PlayerView } from "./gen/verrater/v1/view_pb";
import { describe } from "./happenings";
import { list, t } from "./i18n";
import type { CommandInit } from "./legal";
import { Hand, Happenings, Players, RulesPanel } from "./panels";
import { link } from "./routes";
import type { Session } from "./session";
import { Verification } from "./verifyview";
import { clock, decisionId, decisionWords, phaseName, seatName } from "./words";

const LOG_LINES = 8;
/** How often the turn clock is redrawn. */
const TICK_MS = 250;

/** The server's clock as the page estimates it: a live batch's recorded_at_ms is a moment the
 * server had reached when the batch arrived (docs/CLIENTS.md, "Clocks"), so the largest
 * `recorded - arrival` seen is the least the server's clock is ahead of this one. */
class ServerClock {
  private offset: number | null = null;

  sample(recordedAtMs: bigint): void {
    if (!recordedAtMs) return;
    const seen = Number(recordedAtMs) - Date.now();
    this.offset = this.offset === null ? seen : Math.max(this.offset, seen);
  }

  now(): number {
    return Date.now() + (this.offset ?? 0);
  }
}

export function GameScreen(props: { session: Session; gameId: string; tableId?: string }) {
  const { session, gameId, tableId } = props;
  const [view, setView] = useState<PlayerView | null>(null);
  const [ruleset, setRuleset] = useState<Ruleset | null>(null);
  const [bonus, setBonus] = useState<Record<number, number>>({});
  const [log, setLog] = useState<GameEvent[]>([]);
  const [pause, setPause] = useState<ConflictSummary | null>(null);
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [first, setFirst] = useState<number | null>(null);
  const [buildAt, setBuildAt] = useState<number | null>(null);
  const [now, setNow] = useState(0);
  const latest = useRef<PlayerView | null>(null);
  const serverClock = useRef(new ServerClock());

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
      // Kept as events, worded when shown: in the language of the moment.
      if (latest.current && describe(event, latest.current)) setLog((old) => [...old.slice(-(LOG_LINES - 1)), event]);
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
            const start = message.updates[0];
            // Only a batch appended now says what time it is on the server.
            if (start?.event && start.version > replayedTo) serverClock.current.sample(start.event.recordedAtMs);
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
          if (["GAME_NOT_FOUND", "INVALID_ID", "NOT_SEATED", "NOT_YOUR_SEAT"].includes(refused.reason)) {
            setProblem(explain(error));
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
    const tick = () => setNow(serverClock.current.now());
    tick();
    const timer = setInterval(tick, TICK_MS);
    return () => clearInterval(timer);
  }, [deadline]);

  const mine = !!view && view.seat !== undefined && !!view.turn?.seats.includes(view.seat);
  const decision = mine ? view?.turn?.decision : undefined;
  const over = view?.phase === Phase.GAME_OVER;

  // A new decision: focus (and the keyboard, and a phone's screen) goes where it is asked, the
  // prompt on the ring or the hand; not away from the header's controls or the dialog.
  useEffect(() => {
    if (!decision || pause) return;
    const active = document.activeElement;
    if (active && active !== document.body && !active.closest(".game")) return;
    document.querySelector<HTMLElement>("[data-focus-decision]")?.focus();
  }, [view?.version, decision, pause]);

  if (!view) {
    return (
      <section class="panel narrow">
        <p>{problem || t("game.opening")}</p>
        <a href="#">{t("nav.lobby")}</a>
      </section>
    );
  }

  const submit = async (command: CommandInit) => {
    setBusy(true);
    setProblem("");
    try {
      await game.submitCommand(
        { gameId, expectedVersion: view.version, commandId: newId(), command, versionOnly: true },
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
        submit({ command: { case: "placeBuilding", value: { position, side: BuildingSide.ESTATE } } });
      }
    }
  };

  let clockText = "";
  if (deadline && now) {
    const left = Number(deadline.seconds) * 1000 + deadline.nanos / 1e6 - now;
    // The server's deadlines are exact: a turn never has more than the table's turn time, which
    // every view carries (a browser's clock behind the server's would show more).
    const turnSeconds = view.turnSeconds;
    clockText = clock(turnSeconds ? Math.min(left, turnSeconds * 1000) : left);
  }
  const summary = view.lastConflict;

  return (
    <div
      class="game"
      data-version={String(view.version)}
      data-phase={Phase[view.phase]}
      data-your-turn={mine ? "true" : "false"}
      data-decision={decisionId(decision)}
    >
      <StatusLine view={view} clockText={clockText} onLastConflict={summary && !over ? () => setPause(summary) : undefined} />
      {problem && (
        <p class="problem" role="alert" data-testid="explanation">
          {problem}
        </p>
      )}
      {over && <EndPanel view={view} bonus={bonus} gameId={gameId} token={() => session.token()} />}
      <div class="table-area">
        <Board
          view={view}
          ruleset={ruleset}
          decision={decision}
          first={first}
          buildAt={buildAt}
          busy={busy}
          onLandscape={clickLandscape}
          onConflict={(a, b) => submit({ command: { case: "chooseConflict", value: { first: a, second: b } } })}
        >
          <BoardPrompt
            decision={decision}
            first={first}
            buildAt={buildAt}
            busy={busy}
            onBuild={(position, side) => submit({ command: { case: "placeBuilding", value: { position, side } } })}
          />
        </Board>
        <div class="panels">
          {view.seat !== undefined && !over && (
            <Hand
              view={view}
              ruleset={ruleset}
              decision={decision}
              selected={selected}
              busy={busy}
              onToggleCard={(index) =>
                setSelected((old) => (old.includes(index) ? old.filter((i) => i !== index) : [...old, index]))
              }
              onSubmit={submit}
            />
          )}
          {tableId ? <Chat session={session} tableId={tableId} /> : <Chat session={session} gameId={gameId} />}
          <Players view={view} bonus={bonus} />
          <Happenings lines={log.map((event) => describe(event, view) ?? "")} />
          <RulesPanel ruleset={ruleset} players={view.seats.length} />
        </div>
      </div>
      {pause && !over && (
        <ConflictDialog view={view} ruleset={ruleset} summary={pause} onClose={() => setPause(null)} />
      )}
      <p class="hint">
        {t("game.spectators")} <a href={`#watch/${gameId}`}>{link(`#watch/${gameId}`)}</a>{" "}
        <a href="#">{t("nav.lobby")}</a>
      </p>
    </div>
  );
}

/** The ring's middle while a decision is made on the ring: what to choose. */
function BoardPrompt(props: {
  decision: DecisionKind | undefined;
  first: number | null;
  buildAt: number | null;
  busy: boolean;
  onBuild: (position: number, side: BuildingSide) => void;
}) {
  const { decision, first, buildAt, busy } = props;
  const prompt = (text: string) => (
    <p class="prompt" tabIndex={-1} data-focus-decision>
      {text}
    </p>
  );
  switch (decision) {
    case DecisionKind.CHOOSE_CONFLICT:
      return prompt(first === null ? t("prompt.conflict") : t("prompt.conflict_second", { position: first }));
    case DecisionKind.PLACE_FIRST_ESTATE:
      return prompt(t("prompt.first_estate"));
    case DecisionKind.BUILD:
      if (buildAt === null) return prompt(t("prompt.build"));
      return (
        <div class="build-choice" role="group" aria-label={t("prompt.build_at", { position: buildAt })} data-testid="build-choice">
          <p>{t("prompt.build_at", { position: buildAt })}</p>
          <button disabled={busy} onClick={() => props.onBuild(buildAt, BuildingSide.ESTATE)}>
            {t("side.ESTATE")}
          </button>
          <button disabled={busy} onClick={() => props.onBuild(buildAt, BuildingSide.TRADING_POST)}>
            {t("side.TRADING_POST")}
          </button>
        </div>
      );
    default:
      return null;
  }
}

/** What the game waits for, in one line that stays in sight (style.css: sticky). */
export function StatusLine(props: { view: PlayerView; clockText?: string; onLastConflict?: () => void }) {
  const { view, clockText } = props;
  const turn = view.turn;
  let what: string;
  if (view.phase === Phase.GAME_OVER) {
    const names = view.winners.map((seat) => seatName(view, seat));
    what = t("status.over", { winners: list(names), count: names.length });
  } else if (turn?.seats.length && turn.decision) {
    const mine = view.seat !== undefined && turn.seats.includes(view.seat);
    what = mine
      ? t("status.your_turn", { what: decisionWords(turn.decision) })
      : t("status.waiting", {
          seats: list(turn.seats.map((seat) => seatName(view, seat))),
          what: decisionWords(turn.decision),
          count: turn.seats.length,
        });
  } else {
    what = t("status.automatic");
  }
  return (
    <div class="status" data-testid="status">
      <span>{t("status.round", { round: Math.max(view.round, 1), rounds: view.rounds, phase: phaseName(view.phase) })}</span>
      <strong role="status" aria-live="polite">
        {what}
      </strong>
      {clockText && (
        <span class="clock" aria-label={t("status.clock_label", { time: clockText })}>
          {t("status.clock", { time: clockText })}
        </span>
      )}
      {props.onLastConflict && (
        <button class="small" data-testid="last-conflict" onClick={props.onLastConflict}>
          ⚔ {t("status.last_conflict")}
        </button>
      )}
    </div>
  );
}

/** The end of a game: the final scores first, then its replay and its verification. */
function EndPanel(props: {
  view: PlayerView;
  bonus: Record<number, number>;
  gameId: string;
  token: () => Promise<string>;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    heading.current?.scrollIntoView({ block: "nearest" });
  }, []);
  return (
    <section class="panel final" aria-labelledby="final-title" data-testid="final-scores">
      <h2 id="final-title" tabIndex={-1} ref={heading}>
        {t("final.title")}
      </h2>
      <FinalTable view={props.view} bonus={props.bonus} />
      <p>
        <a href={`#replay/${props.gameId}`}>{t("final.replay")}</a> · <a href="#">{t("nav.lobby")}</a>
      </p>
      <Verification gameId={props.gameId} token={props.token} />
    </section>
  );
}

export function FinalTable(props: { view: PlayerView; bonus?: Record<number, number> }) {
  const { view, bonus } = props;
  const order = [...view.seats].sort((a, b) => b.vp - a.vp);
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t("final.player")}</th>
          <th scope="col">{t("final.vp")}</th>
          {bonus && <th scope="col">{t("final.bonus")}</th>}
        </tr>
      </thead>
      <tbody>
        {order.map((seat) => (
          <tr class={view.winners.includes(seat.seat) ? "winner" : ""}>
            <th scope="row">
              {seatName(view, seat.seat)}
              {view.winners.includes(seat.seat) ? ` (${t("final.winner")})` : ""}
            </th>
            <td>{seat.vp}</td>
            {bonus && <td>{bonus[seat.seat] ?? 0}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
