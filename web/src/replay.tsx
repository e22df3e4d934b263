// A finished game stepped through as a spectator saw it: the game's log streamed from its first
// event (Watch, WATCH_MODE_EVENTS, grouped, with a player token: the public view), one step per
// batch (a decision and what followed from it), by step, by phase and by round, each step with
// its events in words and the conflict explained. The address (#replay/<game>/<step>) is the
// link to share; the log is verified in the browser beside it.
import { useEffect, useRef, useState } from "preact/hooks";
import { auth, explain, game } from "./api";
import { Board } from "./board";
import { ConflictPanel } from "./conflict";
import { Phase, ScoreReason, type GameEvent } from "./gen/verrater/v1/events_pb";
import { WatchMode } from "./gen/verrater/v1/game_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import type { ConflictSummary, PlayerView } from "./gen/verrater/v1/view_pb";
import { FinalTable, StatusLine } from "./game";
import { describe } from "./happenings";
import { t } from "./i18n";
import { Happenings, Players, RulesPanel } from "./panels";
import { go, link } from "./routes";
import type { Session } from "./session";
import { Verification } from "./verifyview";

interface Step {
  view: PlayerView;
  events: GameEvent[];
  /** The conflict this step resolved, if it resolved one. */
  conflict: ConflictSummary | null;
  /** Trading-post points of the final scoring, per seat, once scored. */
  bonus: Record<number, number>;
}

type Loaded = { steps: Step[]; ruleset: Ruleset | null } | { running: true } | { problem: string };

async function load(session: Session, gameId: string): Promise<Loaded> {
  const token = await session.token();
  const [now, rules] = await Promise.all([
    game.getView({ gameId }, auth(token)),
    game.getRuleset({ gameId }, {}),
  ]);
  if (now.view?.phase !== Phase.GAME_OVER) return { running: true };
  const steps: Step[] = [];
  let bonus: Record<number, number> = {};
  for await (const message of game.watch({ gameId, fromVersion: 0n, mode: WatchMode.EVENTS, grouped: true }, auth(token))) {
    const view = message.updates[message.updates.length - 1]?.view;
    if (!view) continue;
    const events: GameEvent[] = [];
    let conflict: ConflictSummary | null = null;
    for (const update of message.updates) {
      const happened = update.event?.event;
      if (!happened) continue;
      if (happened.case === "conflictResolved") conflict = view.lastConflict ?? null;
      if (happened.case === "pointsAwarded" && happened.value.reason === ScoreReason.TRADING_POSTS) {
        bonus = { ...bonus, [happened.value.seat]: (bonus[happened.value.seat] ?? 0) + happened.value.points };
      }
      events.push(update.event!);
    }
    steps.push({ view, events, conflict, bonus });
  }
  return { steps, ruleset: rules.ruleset ?? null };
}

/** The step a move lands on: the next (or previous) step whose round, or round and phase, differ. */
function jump(steps: Step[], from: number, direction: 1 | -1, by: "step" | "phase" | "round"): number {
  const key = (step: Step) =>
    by === "round" ? `${step.view.round}` : `${step.view.round}:${step.view.phase}`;
  if (by === "step") return Math.min(steps.length - 1, Math.max(0, from + direction));
  const here = key(steps[from]);
  let at = from;
  while (at + direction >= 0 && at + direction < steps.length && key(steps[at + direction]) === here) at += direction;
  if (direction === 1) return Math.min(steps.length - 1, at + 1);
  // Backwards: to the first step of the phase (or round) before this one.
  if (at === 0) return 0;
  const before = key(steps[at - 1]);
  let start = at - 1;
  while (start > 0 && key(steps[start - 1]) === before) start -= 1;
  return start;
}

export function ReplayScreen(props: { session: Session; gameId: string; step: number | null }) {
  const { session, gameId } = props;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    let live = true;
    load(session, gameId).then(
      (result) => live && setLoaded(result),
      (error) => live && setLoaded({ problem: explain(error) }),
    );
    return () => {
      live = false;
    };
  }, [gameId]);

  if (!loaded || "problem" in loaded || "running" in loaded) {
    return (
      <section class="panel narrow" aria-labelledby="replay-title">
        <h1 id="replay-title">{t("replay.title")}</h1>
        {!loaded && <p>{t("replay.loading")}</p>}
        {loaded && "problem" in loaded && (
          <p role="alert" class="problem">
            {loaded.problem}
          </p>
        )}
        {loaded && "running" in loaded && (
          <p>
            {t("replay.running")} <a href={`#watch/${gameId}`}>{t("replay.watch_live")}</a>
          </p>
        )}
        <a href="#">{t("nav.lobby")}</a>
      </section>
    );
  }
  const { steps, ruleset } = loaded;
  const at = Math.min(steps.length - 1, Math.max(0, props.step ?? 0));
  const step = steps[at];
  const view = step.view;
  const goTo = (next: number) => go(`#replay/${gameId}/${next}`);
  const move = (direction: 1 | -1, by: "step" | "phase" | "round") => goTo(jump(steps, at, direction, by));
  const over = view.phase === Phase.GAME_OVER;
  const controls: [string, () => void, boolean][] = [
    [t("replay.start"), () => goTo(0), at === 0],
    [t("replay.round_back"), () => move(-1, "round"), at === 0],
    [t("replay.phase_back"), () => move(-1, "phase"), at === 0],
    [t("replay.step_back"), () => move(-1, "step"), at === 0],
    [t("replay.step_on"), () => move(1, "step"), at === steps.length - 1],
    [t("replay.phase_on"), () => move(1, "phase"), at === steps.length - 1],
    [t("replay.round_on"), () => move(1, "round"), at === steps.length - 1],
    [t("replay.end"), () => goTo(steps.length - 1), at === steps.length - 1],
  ];
  return (
    <div
      class="game replay"
      data-step={at}
      data-steps={steps.length}
      data-round={view.round}
      data-phase={Phase[view.phase]}
      data-version={String(view.version)}
    >
      <ArrowKeys onStep={(direction, shift) => move(direction, shift ? "phase" : "step")} />
      <h1 class="visually-hidden">{t("replay.title")}</h1>
      <StatusLine view={view} />
      <nav class="panel replay-controls" aria-label={t("replay.controls")}>
        <p>
          {t("replay.position", { step: at + 1, steps: steps.length })} ·{" "}
          <a href={`#replay/${gameId}/${at}`}>{t("replay.share")}</a>{" "}
          <input readOnly class="wide" aria-label={t("replay.link_label")} value={link(`#replay/${gameId}/${at}`)} />
        </p>
        <div class="actions">
          {controls.map(([label, act, disabled]) => (
            <button onClick={act} disabled={disabled}>
              {label}
            </button>
          ))}
        </div>
        <p class="hint">{t("replay.keys")}</p>
      </nav>
      {over && (
        <section class="panel final" aria-labelledby="final-title" data-testid="final-scores">
          <h2 id="final-title">{t("final.title")}</h2>
          <FinalTable view={view} bonus={step.bonus} />
        </section>
      )}
      <div class="table-area">
        <Board view={view} ruleset={ruleset} />
        <div class="panels">
          {step.conflict && <ConflictPanel view={view} ruleset={ruleset} summary={step.conflict} />}
          <Happenings
            lines={step.events.map((event) => describe(event, view)).filter((line): line is string => !!line)}
            title={t("replay.happened")}
          />
          <Players view={view} bonus={step.bonus} />
          <section class="panel">
            <Verification gameId={gameId} token={() => session.token()} />
          </section>
          <RulesPanel ruleset={ruleset} players={view.seats.length} />
        </div>
      </div>
    </div>
  );
}

/** ← and → anywhere on the page (but in a text field or a list): a step, with Shift a phase. */
function ArrowKeys(props: { onStep: (direction: 1 | -1, shift: boolean) => void }) {
  const latest = useRef(props.onStep);
  latest.current = props.onStep;
  useEffect(() => {
    const listen = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "ArrowRight") latest.current(1, event.shiftKey);
      else if (event.key === "ArrowLeft") latest.current(-1, event.shiftKey);
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", listen);
    return () => window.removeEventListener("keydown", listen);
  }, []);
  return null;
}
