// One line for people per notable event of a game ("Anna plays 3 + 5"); automatic bookkeeping
// (phases beginning, cards dealt) says nothing.
import type { GameEvent } from "./gen/verrater/v1/events_pb";
import type { PlayerView } from "./gen/verrater/v1/view_pb";
import { list, t } from "./i18n";
import { actionName, houseName, landAt, seatName, sideName } from "./words";

export function describe(event: GameEvent, view: PlayerView): string | null {
  const happened = event.event;
  const who = (seat: number) => seatName(view, seat);
  switch (happened.case) {
    case "firstEstatePlaced":
      return t("event.first_estate", { seat: who(happened.value.seat), land: landAt(view, happened.value.position) });
    case "roundStarted":
      return t("event.round_started", { round: happened.value.round, seat: who(happened.value.startPlayer) });
    case "conflictChosen":
      return t("event.conflict_chosen", {
        seat: who(happened.value.seat),
        a: landAt(view, happened.value.first),
        b: landAt(view, happened.value.second),
      });
    case "actionCardPicked":
      return t("event.picked", { seat: who(happened.value.seat) });
    case "supplyPlayed": {
      const cards = happened.value.cards;
      return cards.length
        ? t("event.plays", { seat: who(happened.value.seat), cards: cards.join(" + ") })
        : t("event.plays_none", { seat: who(happened.value.seat) });
    }
    case "actionCardsRevealed":
      return t("event.revealed", {
        picks: list(
          happened.value.picks
            .map((pick, seat) => (pick.card ? t("event.revealed_pick", { seat: who(seat), card: actionName(pick.card) }) : ""))
            .filter(Boolean),
        ),
      });
    case "allegianceSwitched":
      return t("event.betrays", { seat: who(happened.value.seat), house: houseName(happened.value.house) });
    case "conflictResolved":
      return happened.value.winner
        ? t("event.conflict_won", {
            house: houseName(happened.value.winner),
            eagle: happened.value.eagleStrength,
            rose: happened.value.roseStrength,
          })
        : t("event.conflict_tie", { eagle: happened.value.eagleStrength, rose: happened.value.roseStrength });
    case "pointsAwarded":
      return t("event.points", { seat: who(happened.value.seat), count: happened.value.points });
    case "landscapeFlipped":
      return t("event.flipped", { land: landAt(view, happened.value.position), house: houseName(happened.value.house) });
    case "buildingPlaced":
      return t("event.builds", {
        seat: who(happened.value.seat),
        side: sideName(happened.value.side),
        land: landAt(view, happened.value.position),
      });
    case "buildingFlipped":
      return t("event.turns", {
        seat: who(happened.value.seat),
        side: sideName(happened.value.side),
        land: landAt(view, happened.value.position),
      });
    case "buildingMoved":
      return t("event.moves", {
        seat: who(happened.value.seat),
        from: landAt(view, happened.value.origin),
        to: landAt(view, happened.value.destination),
        side: sideName(happened.value.side),
      });
    case "buildPassed":
      return t("event.builds_nothing", { seat: who(happened.value.seat) });
    case "cardsDrawn":
      return happened.value.count
        ? t("event.draws", { seat: who(happened.value.seat), count: happened.value.count })
        : null;
    case "cardsDiscarded":
      return t("event.discards", { seat: who(happened.value.seat), count: happened.value.cards.length });
    case "discardPileReshuffled":
      return t("event.reshuffled", { count: happened.value.size });
    case "roundEnded":
      return t("event.round_ended", { round: happened.value.round });
    case "gameEnded":
      return t("event.game_ended");
    default:
      return null;
  }
}
