// Names the page prints for the contract's enums and seats (RULES.md's English names).
import { ActionCard, BuildingSide, House, LandscapeType } from "./gen/verrater/v1/cards_pb";
import { BotLevel, Phase } from "./gen/verrater/v1/events_pb";
import type { ActionCardSpec } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type PlayerView } from "./gen/verrater/v1/view_pb";

export const HOUSE: Record<number, string> = {
  [House.EAGLE]: "Eagle",
  [House.ROSE]: "Rose",
};

export const LANDSCAPE: Record<number, string> = {
  [LandscapeType.WASTELAND]: "Wasteland",
  [LandscapeType.MEADOW]: "Meadow",
  [LandscapeType.RIVER]: "River",
  [LandscapeType.FOREST]: "Forest",
  [LandscapeType.VILLAGE]: "Village",
  [LandscapeType.CITY]: "City",
};

export const ACTION: Record<number, string> = {
  [ActionCard.TRAITOR]: "Traitor",
  [ActionCard.DIPLOMAT2]: "Diplomat 2",
  [ActionCard.DIPLOMAT5]: "Diplomat 5",
  [ActionCard.BUILDER]: "Builder",
  [ActionCard.STRATEGIST]: "Strategist",
  [ActionCard.FARMER]: "Farmer",
};

export const SIDE: Record<number, string> = {
  [BuildingSide.ESTATE]: "estate",
  [BuildingSide.TRADING_POST]: "trading post",
};

export const PHASE: Record<number, string> = {
  [Phase.SETUP]: "Setup",
  [Phase.FIRST_ESTATES]: "First estates",
  [Phase.CONFLICT]: "Conflict",
  [Phase.DRAFT]: "Draft",
  [Phase.SUPPLY]: "Supply",
  [Phase.BUILD]: "Build",
  [Phase.HAND_LIMIT]: "Hand limit",
  [Phase.GAME_OVER]: "Game over",
};

export const BOT: Record<number, string> = {
  [BotLevel.EASY]: "easy bot",
  [BotLevel.NORMAL]: "normal bot",
  [BotLevel.HARD]: "hard bot",
};

/** What a decision asks, for the status line: "must <what>". */
export const DECISION: Record<number, string> = {
  [DecisionKind.PLACE_FIRST_ESTATE]: "place a first estate",
  [DecisionKind.CHOOSE_CONFLICT]: "choose the conflict",
  [DecisionKind.PICK_ACTION_CARD]: "pick an action card",
  [DecisionKind.PLAY_SUPPLY]: "play supply cards",
  [DecisionKind.BUILD]: "build",
  [DecisionKind.DISCARD]: "discard down to 5 cards",
};

export function seatName(view: PlayerView, seat: number): string {
  const who = view.seats[seat];
  const name = who?.name || `Seat ${seat + 1}`;
  return view.seat === seat ? `${name} (you)` : name;
}

/** What an action card does, from its spec in the ruleset (never from literals here). */
export function actionEffect(spec: ActionCardSpec): string {
  const parts: string[] = [];
  if (spec.switchesHouse) parts.push("switch to the other house before the conflict is resolved");
  if (spec.conflictPoints) parts.push(`+${spec.conflictPoints} strength for your house`);
  if (spec.victoryPoints) parts.push(`${spec.victoryPoints} VP`);
  if (spec.takesStrategist) parts.push("take the strategy card");
  if (spec.builds) parts.push("build, flip or pass");
  if (spec.replacesEstateDraw) parts.push(`draw ${spec.cardsDrawn} cards instead of your estates' cards`);
  else if (spec.cardsDrawn) parts.push(`draw ${spec.cardsDrawn} more card${spec.cardsDrawn > 1 ? "s" : ""}`);
  return parts.join("; ");
}

export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const mm = hours ? String(minutes).padStart(2, "0") : String(minutes);
  return `${hours ? `${hours}:` : ""}${mm}:${String(seconds).padStart(2, "0")}`;
}
