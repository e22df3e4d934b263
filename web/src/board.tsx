// The ring of twelve landscapes, drawn as the ring it is: a track through the twelve cards laid
// around the table's middle, and a link between each pair of neighbours, marked where the two
// belong to different houses (the pairs a strategist may choose; while choosing, the links are
// the buttons that choose them). Each card: its house by colour and name, conflict value,
// victory-point scale by number of winners (`*` provisional, said under the ring), its building
// and owner. Flips and builds are animated (not under prefers-reduced-motion: style.css).
import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";
import { BuildingSide } from "./gen/verrater/v1/cards_pb";
import type { LandscapeSpec, Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type LandscapeView, type PlayerView } from "./gen/verrater/v1/view_pb";
import { t } from "./i18n";
import { isLegal, landscapeSpec } from "./legal";
import { houseClass, houseName, landAt, landName, seatName, sideName } from "./words";

/** Ring position -> [row, column] on a 4x4 grid: its border is the ring, clockwise. */
const CELLS: [number, number][] = [
  [1, 1], [1, 2], [1, 3], [1, 4], [2, 4], [3, 4],
  [4, 4], [4, 3], [4, 2], [4, 1], [3, 1], [2, 1],
];

export interface BoardProps {
  view: PlayerView;
  ruleset: Ruleset | null;
  /** The decision asked of the caller's seat; undefined: the board only shows. */
  decision?: DecisionKind;
  first?: number | null;
  buildAt?: number | null;
  busy?: boolean;
  onLandscape?: (position: number) => void;
  onConflict?: (first: number, second: number) => void;
  onBuild?: (position: number, side: BuildingSide) => void;
  /** Shown in the ring's middle, under the conflict. */
  children?: ComponentChildren;
}

/** Whether clicking this landscape would be one of the view's legal commands. */
function legalAt(view: PlayerView, decision: DecisionKind | undefined, first: number | null, position: number): boolean {
  switch (decision) {
    case DecisionKind.PLACE_FIRST_ESTATE:
      return isLegal(view, { command: { case: "placeFirstEstate", value: { position } } });
    case DecisionKind.CHOOSE_CONFLICT:
      return view.legal.some((command) => {
        if (command.command.case !== "chooseConflict") return false;
        const pair = command.command.value;
        if (first === null) return pair.first === position || pair.second === position;
        return (
          (pair.first === first && pair.second === position) ||
          (pair.second === first && pair.first === position)
        );
      });
    case DecisionKind.BUILD:
      return view.legal.some((command) => {
        const chosen = command.command;
        return (
          (chosen.case === "placeBuilding" || chosen.case === "flipBuilding") &&
          chosen.value.position === position
        );
      });
    default:
      return false;
  }
}

function pairIsLegal(view: PlayerView, a: number, b: number): boolean {
  return view.legal.some((command) => {
    if (command.command.case !== "chooseConflict") return false;
    const { first, second } = command.command.value;
    return (first === a && second === b) || (first === b && second === a);
  });
}

/** The conflict value and VP scale as the card prints them, `*` on provisional numbers. */
function Numbers(props: { spec: LandscapeSpec | undefined; players: number }) {
  const { spec, players } = props;
  if (!spec) return null;
  return (
    <span class="numbers" aria-hidden="true">
      <span class="cp">
        {t("ring.cp_short")} {spec.cp}
        {spec.cpProvisional ? "*" : ""}
      </span>
      <span class="vp">
        {t("ring.vp_short")}{" "}
        {spec.vp.slice(0, players).map((cell, index) => (
          <span>
            {index ? "/" : ""}
            {cell.points}
            {cell.provisional ? "*" : ""}
          </span>
        ))}
      </span>
    </span>
  );
}

/** What the card shows in signs (its numbers, its place in the conflict), in words: read by
 * screen readers after what it shows in words, so its name begins with what is seen. */
function describeLandscape(view: PlayerView, spec: LandscapeSpec | undefined, land: LandscapeView): string {
  const parts: string[] = [];
  if (spec) {
    parts.push(
      t(spec.cpProvisional ? "ring.cp_provisional" : "ring.cp", { cp: spec.cp }),
      t("ring.scale", {
        scale: spec.vp
          .slice(0, view.seats.length)
          .map((cell, i) =>
            t(cell.provisional ? "ring.scale_cell_provisional" : "ring.scale_cell", {
              points: cell.points,
              count: i + 1,
            }),
          )
          .join(", "),
      }),
    );
  }
  if (land.buildingOwner === undefined) parts.push(t("ring.no_building"));
  if (view.conflict && (view.conflict.first === land.position || view.conflict.second === land.position)) {
    parts.push(t("ring.in_conflict"));
  }
  return parts.join(" ");
}

/** What changed on the ring since the view before: flipped landscapes, new or turned buildings. */
function changes(before: PlayerView | null, view: PlayerView) {
  const flipped = new Set<number>();
  const built = new Set<number>();
  if (!before || before.gameId !== view.gameId) return { flipped, built };
  for (const land of view.ring) {
    const old = before.ring[land.position];
    if (!old) continue;
    if (old.house !== land.house) flipped.add(land.position);
    if (old.buildingOwner !== land.buildingOwner || old.buildingSide !== land.buildingSide) {
      built.add(land.position);
    }
  }
  return { flipped, built };
}

export function Board(props: BoardProps) {
  const { view, ruleset, decision, busy = false } = props;
  const first = props.first ?? null;
  const buildAt = props.buildAt ?? null;
  const seen = useRef<{ version: bigint; before: PlayerView | null; current: PlayerView | null }>({
    version: -1n,
    before: null,
    current: null,
  });
  if (seen.current.version !== view.version) {
    seen.current = { version: view.version, before: seen.current.current, current: view };
  }
  const { flipped, built } = changes(seen.current.before, view);
  const onBoard =
    !!props.onLandscape &&
    (decision === DecisionKind.PLACE_FIRST_ESTATE ||
      decision === DecisionKind.CHOOSE_CONFLICT ||
      decision === DecisionKind.BUILD);
  const choosing = decision === DecisionKind.CHOOSE_CONFLICT && !!props.onConflict;
  const inConflict = (position: number) =>
    !!view.conflict && (view.conflict.first === position || view.conflict.second === position);
  const players = view.seats.length;
  const starred = view.ring.some((land) => {
    const spec = landscapeSpec(ruleset, land.type);
    return spec && (spec.cpProvisional || spec.vp.slice(0, players).some((cell) => cell.provisional));
  });

  const links = view.ring.map((land) => {
    const next = (land.position + 1) % view.ring.length;
    const other = view.ring[next];
    const contested = !!other && other.house !== land.house;
    const marked =
      !!view.conflict &&
      ((view.conflict.first === land.position && view.conflict.second === next) ||
        (view.conflict.second === land.position && view.conflict.first === next));
    const label = t(contested ? "ring.link_contested" : "ring.link", {
      a: landAt(view, land.position),
      b: landAt(view, next),
    });
    const classes = `link link-${land.position}${contested ? " contested" : ""}${marked ? " marked" : ""}`;
    if (choosing && pairIsLegal(view, land.position, next)) {
      return (
        <button
          class={`${classes} legal`}
          aria-label={t("ring.choose_pair", { a: landAt(view, land.position), b: landAt(view, next) })}
          data-pair={`${land.position}-${next}`}
          disabled={busy}
          onClick={() => props.onConflict?.(land.position, next)}
        >
          ⚔
        </button>
      );
    }
    return (
      <span class={classes} title={label} aria-hidden="true">
        {marked ? "⚔" : contested ? "·" : ""}
      </span>
    );
  });

  return (
    <section class="board" aria-labelledby="ring-title">
      <h2 id="ring-title" class="visually-hidden">
        {t("ring.title")}
      </h2>
      <div class="ring">
        <div class="middle">
          {view.conflict ? (
            <p class="conflict-line">
              ⚔{" "}
              {t("ring.conflict", {
                a: landAt(view, view.conflict.first),
                b: landAt(view, view.conflict.second),
              })}
            </p>
          ) : (
            <p>{t("ring.no_conflict")}</p>
          )}
          {props.children}
          <p class="deck">
            {t("ring.piles", { deck: view.deckCount, discards: view.discard.length })}
          </p>
        </div>
        <div class="track" aria-hidden="true" />
        {links}
        {view.ring.map((land) => {
          const [row, column] = CELLS[land.position];
          const spec = landscapeSpec(ruleset, land.type);
          const legal = onBoard && legalAt(view, decision, first, land.position);
          const classes = [
            "land",
            houseClass(land.house),
            `row-${row}`,
            `col-${column}`,
            inConflict(land.position) ? "conflict" : "",
            legal ? "legal" : "",
            first === land.position || buildAt === land.position ? "chosen" : "",
            flipped.has(land.position) ? "flipped" : "",
          ].join(" ");
          const content = (
            <>
              <span class="land-name">
                <span class="pos">{land.position}</span> {landName(land.type)}
              </span>
              <span class="land-house">
                <span class="emblem" aria-hidden="true" /> {houseName(land.house)}
                <span class="visually-hidden">.</span>
              </span>
              <Numbers spec={spec} players={players} />
              {land.buildingOwner !== undefined && (
                <span
                  class={`building seat-${land.buildingOwner}${built.has(land.position) ? " fresh" : ""}`}
                >
                  {sideName(land.buildingSide)} · {view.seats[land.buildingOwner]?.name || seatName(view, land.buildingOwner)}
                </span>
              )}
              <span class="visually-hidden"> {describeLandscape(view, spec, land)}</span>
            </>
          );
          return onBoard ? (
            <button
              class={classes}
              aria-pressed={first === land.position || buildAt === land.position}
              data-legal={legal ? "true" : "false"}
              data-position={land.position}
              disabled={busy}
              onClick={() => props.onLandscape?.(land.position)}
            >
              {content}
            </button>
          ) : (
            <div class={classes} data-position={land.position}>
              {content}
            </div>
          );
        })}
      </div>
      <p class="legend">
        {t("ring.legend", { players })}
        {starred && (
          <>
            {" "}
            <span data-testid="provisional-note">{t("provisional.note")}</span>
          </>
        )}
      </p>
    </section>
  );
}
