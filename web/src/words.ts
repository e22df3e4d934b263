// Names the page prints for the contract's enums and seats, from the catalogs (i18n.ts): the
// key is the enum value's name ("house.EAGLE", "bot.HARD"), so a value the contract gains is
// looked up by its name too, and shows its name until the catalogs know it.
import { ActionCard, BuildingSide, House, LandscapeType } from "./gen/verrater/v1/cards_pb";
import { BotLevel, Phase } from "./gen/verrater/v1/events_pb";
import type { ActionCardSpec } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type PlayerView } from "./gen/verrater/v1/view_pb";
import { t, tDynamic, type Params } from "./i18n";

type NumericEnum = Record<number, string>;

function named(prefix: string, values: NumericEnum, value: number | undefined, params?: Params) {
  const name = value === undefined ? undefined : values[value];
  if (!name) return "?";
  return tDynamic(`${prefix}.${name}`, params, name.toLowerCase().replace(/_/g, " "));
}

/** Every value of a generated enum but UNSPECIFIED, in number order: a value the contract gains
 * (a new bot level) is listed without a change here. */
export function enumValues(values: NumericEnum): number[] {
  return Object.keys(values)
    .map(Number)
    .filter((value) => Number.isInteger(value) && value > 0)
    .sort((a, b) => a - b);
}

export const houseName = (house: House | undefined) => named("house", House, house);
export const landName = (type: LandscapeType | undefined) => named("land", LandscapeType, type);
export const actionName = (card: ActionCard | undefined) => named("action", ActionCard, card);
export const sideName = (side: BuildingSide | undefined) => named("side", BuildingSide, side);
export const phaseName = (phase: Phase | undefined) => named("phase", Phase, phase);
export const botName = (level: BotLevel) => named("bot", BotLevel, level);
/** How strong a level plays, as measured by `verrater bench bots` (README, "Bot levels"). */
export const levelStrength = (level: BotLevel) => named("level", BotLevel, level);
/** What a decision asks, after "must" / "Your turn:". */
export const decisionWords = (kind: DecisionKind | undefined) => named("decision", DecisionKind, kind);
/** The decision's stable name for the page's hooks ("play-supply"), whatever the language. */
export const decisionId = (kind: DecisionKind | undefined) =>
  kind ? (DecisionKind[kind] ?? "").toLowerCase().replace(/_/g, "-") : "";
/** The house's stable name for classes ("eagle"). */
export const houseClass = (house: House | undefined) =>
  house ? `house-${(House[house] ?? "").toLowerCase()}` : "";

export function seatName(view: PlayerView, seat: number): string {
  const who = view.seats[seat];
  const name = who?.name || t("seat.numbered", { number: seat + 1 });
  return view.seat === seat ? t("seat.you", { name }) : name;
}

/** A landscape by its name and ring position: "Village (3)". */
export function landAt(view: PlayerView, position: number): string {
  return t("land.at", { land: landName(view.ring[position]?.type), position });
}

/** What an action card does, from its spec in the ruleset (never from literals here). */
export function actionEffect(spec: ActionCardSpec): string {
  const parts: string[] = [];
  if (spec.switchesHouse) parts.push(t("effect.switches"));
  if (spec.conflictPoints) parts.push(t("effect.strength", { count: spec.conflictPoints }));
  if (spec.victoryPoints) parts.push(t("effect.vp", { count: spec.victoryPoints }));
  if (spec.takesStrategist) parts.push(t("effect.strategist"));
  if (spec.builds) parts.push(t("effect.builds"));
  if (spec.replacesEstateDraw) parts.push(t("effect.farmer", { count: spec.cardsDrawn }));
  else if (spec.cardsDrawn) parts.push(t("effect.draws", { count: spec.cardsDrawn }));
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
