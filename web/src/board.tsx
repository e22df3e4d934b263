// The ring of twelve landscapes around the board's middle: each with its house, conflict value,
// victory-point scale by number of winners (provisional numbers marked) and building; the
// conflict pair marked; the builder's and the strategist's choices made on the landscapes.
import { BuildingSide } from "./gen/verrater/v1/cards_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type LandscapeView, type PlayerView } from "./gen/verrater/v1/view_pb";
import { isLegal, landscapeCp } from "./legal";
import { HOUSE, LANDSCAPE, SIDE, seatName } from "./words";

/** Ring position -> [row, column] on a 4x4 grid: its border is the ring, clockwise. */
const CELLS: [number, number][] = [
  [1, 1], [1, 2], [1, 3], [1, 4], [2, 4], [3, 4],
  [4, 4], [4, 3], [4, 2], [4, 1], [3, 1], [2, 1],
];

interface BoardProps {
  view: PlayerView;
  ruleset: Ruleset | null;
  decision: DecisionKind | undefined;
  first: number | null;
  buildAt: number | null;
  selected: number[];
  busy: boolean;
  onLandscape: (position: number) => void;
  onBuild: (position: number, side: BuildingSide) => void;
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

function vpScale(ruleset: Ruleset | null, type: number, players: number) {
  const spec = ruleset?.cardTable?.landscapes.find((l) => l.type === type);
  if (!spec) return null;
  return (
    <span class="vp" aria-hidden="true">
      {spec.vp.slice(0, players).map((cell, index) => (
        <span title={`${cell.points} VP each with ${index + 1} winner${index ? "s" : ""}${cell.provisional ? " (provisional)" : ""}`}>
          {index + 1}:{cell.points}
          {cell.provisional ? "*" : ""}
        </span>
      ))}
    </span>
  );
}

function describeLandscape(view: PlayerView, ruleset: Ruleset | null, land: LandscapeView): string {
  const { cp, provisional } = landscapeCp(ruleset, land.type);
  const spec = ruleset?.cardTable?.landscapes.find((l) => l.type === land.type);
  const scale = spec
    ? spec.vp
        .slice(0, view.seats.length)
        .map((cell, i) => `${cell.points}${cell.provisional ? " provisional" : ""} with ${i + 1}`)
        .join(", ")
    : "";
  const building =
    land.buildingOwner !== undefined
      ? `, ${SIDE[land.buildingSide ?? BuildingSide.ESTATE]} of ${seatName(view, land.buildingOwner)}`
      : ", no building";
  const conflict =
    view.conflict && (view.conflict.first === land.position || view.conflict.second === land.position)
      ? ", in this round's conflict"
      : "";
  return (
    `Position ${land.position}: ${LANDSCAPE[land.type]} of ${HOUSE[land.house]}, ` +
    `conflict value ${cp}${provisional ? " (provisional)" : ""}${building}${conflict}. ` +
    (scale ? `Victory points each: ${scale} winners.` : "")
  );
}

export function Board(props: BoardProps) {
  const { view, ruleset, decision, first, buildAt, busy } = props;
  const onBoard =
    decision === DecisionKind.PLACE_FIRST_ESTATE ||
    decision === DecisionKind.CHOOSE_CONFLICT ||
    decision === DecisionKind.BUILD;
  const inConflict = (position: number) =>
    !!view.conflict && (view.conflict.first === position || view.conflict.second === position);
  return (
    <section class="board" aria-label="The ring of landscapes">
      {view.ring.map((land) => {
        const [row, column] = CELLS[land.position];
        const { cp, provisional } = landscapeCp(ruleset, land.type);
        const legal = onBoard && legalAt(view, decision, first, land.position);
        const classes = [
          "land",
          `house-${HOUSE[land.house]?.toLowerCase()}`,
          `row-${row}`,
          `col-${column}`,
          inConflict(land.position) ? "conflict" : "",
          legal ? "legal" : "",
          first === land.position || buildAt === land.position ? "chosen" : "",
        ].join(" ");
        const content = (
          <>
            <span class="land-name">
              <span class="pos">{land.position}</span> {LANDSCAPE[land.type]}
            </span>
            <span class="land-house">{HOUSE[land.house]}</span>
            <span class="cp" title="conflict value">
              ⚔ {cp}
              {provisional ? "*" : ""}
            </span>
            {vpScale(ruleset, land.type, view.seats.length)}
            {land.buildingOwner !== undefined && (
              <span class={`building seat-${land.buildingOwner}`}>
                {land.buildingSide === BuildingSide.TRADING_POST ? "Trading post" : "Estate"}
              </span>
            )}
          </>
        );
        const label = describeLandscape(view, ruleset, land);
        return onBoard ? (
          <button
            class={classes}
            aria-label={label}
            aria-pressed={first === land.position || buildAt === land.position}
            data-legal={legal ? "true" : "false"}
            data-position={land.position}
            disabled={busy}
            onClick={() => props.onLandscape(land.position)}
          >
            {content}
          </button>
        ) : (
          <div class={classes} role="img" aria-label={label} data-position={land.position}>
            {content}
          </div>
        );
      })}
      <div class="middle">
        {view.conflict ? (
          <p>
            Conflict: {LANDSCAPE[view.ring[view.conflict.first].type]} ({view.conflict.first}) against{" "}
            {LANDSCAPE[view.ring[view.conflict.second].type]} ({view.conflict.second})
          </p>
        ) : (
          <p>No conflict chosen yet.</p>
        )}
        {decision === DecisionKind.CHOOSE_CONFLICT && (
          <p class="prompt">
            {first === null
              ? "Choose two neighbouring landscapes of different houses."
              : `Now a neighbour of ${first} of the other house.`}
          </p>
        )}
        {decision === DecisionKind.PLACE_FIRST_ESTATE && (
          <p class="prompt">Choose a landscape without a building for your first estate.</p>
        )}
        {decision === DecisionKind.BUILD && buildAt === null && (
          <p class="prompt">Choose a free landscape to build on, or one of your buildings to flip.</p>
        )}
        {decision === DecisionKind.BUILD && buildAt !== null && (
          <div class="build-choice" role="group" aria-label={`Build at ${buildAt}`}>
            <p>Build at {buildAt}:</p>
            <button disabled={busy} onClick={() => props.onBuild(buildAt, BuildingSide.ESTATE)}>
              Estate
            </button>
            <button disabled={busy} onClick={() => props.onBuild(buildAt, BuildingSide.TRADING_POST)}>
              Trading post
            </button>
          </div>
        )}
        <p class="deck">
          Draw pile {view.deckCount} · Discards {view.discard.length}
        </p>
      </div>
    </section>
  );
}
