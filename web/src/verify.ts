// A finished game's log checked in the browser, from docs/LOG_FORMAT.md alone, as any outside
// verifier would: the hash chain over the exact stored bytes, the seed against its commitment,
// and every shuffle recomputed from the revealed seed with the documented generator (what
// `verrater audit` reports as chain, format and fairness; the replay of the rules stays with
// the audit). Nothing here trusts the server's decoding: each payload is decoded anew.
import { fromBinary } from "@bufbuild/protobuf";
import { ActionCard, House, LandscapeType } from "./gen/verrater/v1/cards_pb";
import { GameEventSchema, type GameEvent } from "./gen/verrater/v1/events_pb";
import type { LoggedEvent } from "./gen/verrater/v1/game_pb";
import { concat, fromHex, hex, sha256 } from "./sha256";

/** What went wrong, at which version: a catalog key ("verify.<kind>") and its words' values. */
export interface Failure {
  version: number;
  kind: string;
  params: Record<string, string | number>;
}

export interface Verdict {
  events: number;
  head: string;
  shuffles: number;
  /** Parts of the setup fixed by hand (not drawn from the seed), by catalog key. */
  explicit: string[];
  failures: Failure[];
}

const GENESIS = "0".repeat(64);
const WORD = 2n ** 64n;

/** The documented generator: random words from sha256(seed + label + block), then Fisher-Yates
 * with rejection sampling (LOG_FORMAT.md, "The generator"). */
export function shuffled<T>(seed: Uint8Array, label: string, items: readonly T[]): T[] {
  const out = [...items];
  const prefix = concat(seed, new TextEncoder().encode(label));
  let block = 0n;
  let words: bigint[] = [];
  const word = (): bigint => {
    if (!words.length) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, block);
      const digest = new DataView(sha256(concat(prefix, counter)).buffer);
      words = [0, 8, 16, 24].map((at) => digest.getBigUint64(at));
      block += 1n;
    }
    return words.shift()!;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const n = BigInt(i + 1);
    const limit = WORD - (WORD % n);
    let w = word();
    while (w >= limit) w = word();
    const j = Number(w % n);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// The inputs of each shuffle, in the order the generator receives them (LOG_FORMAT.md, "Every
// shuffle of a game").
const LANDSCAPES = [
  LandscapeType.WASTELAND,
  LandscapeType.MEADOW,
  LandscapeType.RIVER,
  LandscapeType.FOREST,
  LandscapeType.VILLAGE,
  LandscapeType.CITY,
];
const RING_CARDS = [House.EAGLE, House.ROSE].flatMap((house) => LANDSCAPES.map((type) => ({ type, house })));
const ACTION_CARDS = [
  ActionCard.TRAITOR,
  ActionCard.DIPLOMAT2,
  ActionCard.DIPLOMAT5,
  ActionCard.BUILDER,
  ActionCard.STRATEGIST,
  ActionCard.FARMER,
];
/** The 23 supply cards: 2 x5, 3 x5, 4 x5, 5 x5, 6 x2, 8 x1; each player starts with a 3, 4, 5. */
const SUPPLY: [number, number][] = [[2, 5], [3, 5], [4, 5], [5, 5], [6, 2], [8, 1]];
const STARTING_HAND = [3, 4, 5];

function supplyDeckCards(players: number): number[] {
  const left = new Map(SUPPLY);
  for (const card of STARTING_HAND) left.set(card, (left.get(card) ?? 0) - players);
  return [...left].flatMap(([card, count]) => Array<number>(Math.max(0, count)).fill(card));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const order = (items: readonly (string | number)[]) => items.join(", ");

export function verify(entries: readonly LoggedEvent[]): Verdict {
  const failures: Failure[] = [];
  const found = (version: number, kind: string, params: Failure["params"] = {}) =>
    failures.push({ version, kind, params });
  const events: { version: number; event: GameEvent }[] = [];

  // The chain, over the exact stored bytes.
  let previous = GENESIS;
  entries.forEach((entry, index) => {
    const version = index + 1;
    if (Number(entry.version) !== version) found(version, "version", { got: String(entry.version) });
    if (entry.prevHash !== previous) found(version, "link");
    const prev = fromHex(entry.prevHash);
    const hash = prev && prev.length === 32 ? hex(sha256(concat(prev, entry.payload))) : "";
    if (hash !== entry.hash) found(version, "hash");
    previous = entry.hash;
    try {
      events.push({ version, event: fromBinary(GameEventSchema, entry.payload) });
    } catch {
      found(version, "payload");
    }
  });
  const verdict = (shuffles: number, explicit: string[]): Verdict => ({
    events: entries.length,
    head: previous,
    shuffles,
    explicit,
    failures,
  });

  // The seed against its commitment.
  const created = events[0]?.event.event;
  if (created?.case !== "gameCreated") {
    found(1, "no_creation");
    return verdict(0, []);
  }
  const ended = events.find(({ event }) => event.event.case === "gameEnded");
  const commitment = created.value.seedCommitment;
  const revealed = ended?.event.event.case === "gameEnded" ? ended.event.event.value.seed : undefined;
  if (!ended || !revealed) {
    found(events.length, "no_reveal");
    return verdict(0, []);
  }
  if (hex(sha256(revealed)) !== commitment) {
    found(ended.version, "commitment", { commitment, hash: hex(sha256(revealed)) });
    return verdict(0, []);
  }
  const recorded = created.value.seed;
  if (recorded && hex(recorded) !== hex(revealed)) found(1, "seed_differs");

  // Every shuffle, recomputed.
  const seed = revealed;
  const setup = created.value.setup;
  const players = created.value.ruleset?.players ?? 0;
  const setAsideByHand = setup?.setAside?.cards.length ?? 0;
  const explicit: string[] = [];
  if (setup?.startPlayer !== undefined) explicit.push("verify.explicit_start");
  if (setup?.ring) explicit.push("verify.explicit_ring");
  if (setup?.deck) explicit.push("verify.explicit_deck");
  if (setAsideByHand) explicit.push("verify.explicit_set_aside");
  let shuffles = 0;
  let round = 0;
  let reshuffles = 0;
  let pile: number[] = [];
  const compare = <T,>(version: number, what: string, logged: T, expected: T, show: (items: T) => string) => {
    shuffles += 1;
    if (!same(logged, expected)) found(version, "shuffle", { what, logged: show(logged), expected: show(expected) });
  };
  const numbers = (items: number[]) => order(items);
  for (const { version, event } of events) {
    const happened = event.event;
    switch (happened.case) {
      case "startPlayerChosen":
        if (setup?.startPlayer === undefined) {
          const start = shuffled(seed, "start-player", [...Array(players).keys()])[0];
          compare(version, "start-player", [happened.value.seat], [start], numbers);
        }
        break;
      case "ringLaidOut":
        if (!setup?.ring) {
          const ring = happened.value.landscapes.map(({ type, house }) => ({ type, house }));
          compare(version, "ring", ring, shuffled(seed, "ring", RING_CARDS), (items: { type: number; house: number }[]) =>
            order(items.map(({ type, house }) => `${LandscapeType[type]}/${House[house]}`)),
          );
        }
        break;
      case "supplyDealt":
        if (!setup?.deck) {
          compare(version, "supply", happened.value.deck?.cards ?? [], shuffled(seed, "supply", supplyDeckCards(players)), numbers);
        }
        break;
      case "roundStarted":
        round = happened.value.round;
        break;
      case "actionCardsDealt":
        if (round > setAsideByHand) {
          const logged = [happened.value.setAside ?? 0, ...(happened.value.offered?.cards ?? [])];
          compare(version, `draft:${round}`, logged, shuffled(seed, `draft:${round}`, ACTION_CARDS), (items: number[]) =>
            order(items.map((card) => ActionCard[card] ?? "?")),
          );
        }
        break;
      case "supplyDiscarded":
      case "cardsDiscarded":
        pile.push(...happened.value.cards);
        break;
      case "discardPileReshuffled": {
        const label = `reshuffle:${reshuffles}`;
        const expected = shuffled(seed, label, [...pile].sort((a, b) => a - b));
        compare(version, label, happened.value.order?.cards ?? [], expected, numbers);
        pile = [];
        reshuffles += 1;
        break;
      }
      default:
        break;
    }
  }
  return verdict(shuffles, explicit);
}
