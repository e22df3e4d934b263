// One line for people per notable event of a watched game ("Anna plays 3 + 5"); automatic
// bookkeeping (phases beginning, cards dealt) says nothing.
import type { GameEvent } from "./gen/verrater/v1/events_pb";
import type { PlayerView } from "./gen/verrater/v1/view_pb";
import { ACTION, HOUSE, LANDSCAPE, SIDE, seatName } from "./words";

export function describe(event: GameEvent, view: PlayerView): string | null {
  const happened = event.event;
  const at = (position: number) =>
    `${LANDSCAPE[view.ring[position]?.type] ?? "landscape"} (${position})`;
  switch (happened.case) {
    case "firstEstatePlaced":
      return `${seatName(view, happened.value.seat)} places an estate at ${at(happened.value.position)}`;
    case "conflictChosen":
      return `${seatName(view, happened.value.seat)} marks ${at(happened.value.first)} against ${at(happened.value.second)}`;
    case "supplyPlayed": {
      const cards = happened.value.cards;
      return `${seatName(view, happened.value.seat)} plays ${cards.length ? cards.join(" + ") : "no cards"}`;
    }
    case "allegianceSwitched":
      return `${seatName(view, happened.value.seat)} betrays and backs ${HOUSE[happened.value.house]}`;
    case "conflictResolved":
      return happened.value.winner
        ? `${HOUSE[happened.value.winner]} wins the conflict`
        : "The conflict is a tie";
    case "pointsAwarded":
      return `${seatName(view, happened.value.seat)} gains ${happened.value.points} VP`;
    case "landscapeFlipped":
      return `${at(happened.value.position)} goes to ${HOUSE[happened.value.house]}`;
    case "buildingPlaced":
      return `${seatName(view, happened.value.seat)} builds a ${SIDE[happened.value.side]} at ${at(happened.value.position)}`;
    case "buildingFlipped":
      return `${seatName(view, happened.value.seat)} turns the building at ${at(happened.value.position)} to a ${SIDE[happened.value.side]}`;
    case "buildPassed":
      return `${seatName(view, happened.value.seat)} builds nothing`;
    case "actionCardsRevealed":
      return `Action cards revealed: ${happened.value.picks
        .map((pick, seat) => (pick.card ? `${seatName(view, seat)} ${ACTION[pick.card]}` : ""))
        .filter(Boolean)
        .join(", ")}`;
    case "roundEnded":
      return `Round ${happened.value.round} ends`;
    default:
      return null;
  }
}
