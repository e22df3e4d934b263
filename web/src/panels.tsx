// Beside the ring: the players (house, VP, hand count, played cards), your hand and what the
// current decision asks of it (the draft, the supply with running totals per house, the
// discard), what just happened, and the rules panel generated from the game's ruleset.
import { ActionCard, House } from "./gen/verrater/v1/cards_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type PlayerView } from "./gen/verrater/v1/view_pb";
import { list, t } from "./i18n";
import { landscapeSpec, type CommandInit } from "./legal";
import {
  actionEffect,
  actionName,
  botName,
  houseClass,
  houseName,
  landName,
  seatName,
} from "./words";

/** The most supply cards one seat may play in a round (RULES.md, phase 3). */
const MOST_PLAYED = 5;

interface HandProps {
  view: PlayerView;
  ruleset: Ruleset | null;
  decision?: DecisionKind;
  selected?: number[];
  busy?: boolean;
  onToggleCard?: (index: number) => void;
  onSubmit?: (command: CommandInit) => void;
}

/** The supply cards of this round's conflict so far: each house's landscape plus the cards of
 * those backing it (and the caller's selection, not yet played). Diplomats and the traitor show
 * only at the reveal. */
function runningTotals(view: PlayerView, ruleset: Ruleset | null, extra: number) {
  return [House.EAGLE, House.ROSE].map((house) => {
    let land = 0;
    if (view.conflict) {
      for (const at of [view.conflict.first, view.conflict.second]) {
        if (view.ring[at]?.house === house) land = landscapeSpec(ruleset, view.ring[at].type)?.cp ?? 0;
      }
    }
    const seats = view.seats.filter((seat) => seat.house === house);
    const played = seats.reduce((sum, seat) => sum + (seat.played?.cards.reduce((a, b) => a + b, 0) ?? 0), 0);
    const yours = view.seat !== undefined && view.seats[view.seat]?.house === house ? extra : 0;
    return { house, land, played, yours, total: land + played + yours };
  });
}

export function Players(props: { view: PlayerView; bonus: Record<number, number> }) {
  const { view } = props;
  const anyPlayed = view.seats.some((s) => s.played);
  return (
    <section class="panel players" aria-labelledby="players-title">
      <h2 id="players-title">{t("players.title")}</h2>
      <ul>
        {view.seats.map((seat) => {
          const facts = [
            t("players.vp", { count: seat.vp }),
            t("players.cards", { count: seat.handCount }),
            t("players.buildings_left", { count: seat.unplacedBuildings }),
          ];
          if (seat.tradingPosts) facts.push(t("players.trading_posts", { count: seat.tradingPosts }));
          if (props.bonus[seat.seat]) facts.push(t("players.bonus", { count: props.bonus[seat.seat] }));
          let played = "";
          if (seat.played) {
            played = seat.played.cards.length
              ? t("players.played", { cards: seat.played.cards.join(" + ") })
              : t("players.played_none");
          } else if (anyPlayed) {
            played = t("players.not_played");
          }
          const pick = seat.revealedPick
            ? actionName(seat.revealedPick)
            : seat.hasPicked
              ? t("players.has_picked")
              : "";
          return (
            <li
              class={`player seat-${seat.seat} ${view.turn?.seats.includes(seat.seat) ? "acting" : ""}`}
              data-seat={seat.seat}
            >
              <span class="chip" aria-hidden="true" />
              <strong>{seatName(view, seat.seat)}</strong>
              {seat.botLevel ? <span class="tag"> {botName(seat.botLevel)}</span> : null}
              {view.startPlayer === seat.seat && <span class="tag"> ★ {t("players.start")}</span>}
              {view.strategist === seat.seat && <span class="tag"> ⚑ {t("players.strategist")}</span>}
              <br />
              <span class={`house-tag ${houseClass(seat.house)}`}>{houseName(seat.house)}</span> ·{" "}
              {facts.join(" · ")}
              {(played || pick) && (
                <>
                  <br />
                  <span class="played">{[played, pick].filter(Boolean).join(" · ")}</span>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The caller's hand and the decision asked of it (not the ones made on the ring). */
export function Hand(props: HandProps) {
  const { view, ruleset, decision, busy = false } = props;
  const selected = props.selected ?? [];
  const submit = (command: CommandInit) => props.onSubmit?.(command);
  const hand = view.hand?.cards ?? [];
  const chosen = selected.map((index) => hand[index]).filter((card) => card !== undefined);
  const chosenSum = chosen.reduce((a, b) => a + b, 0);
  const cardsClickable = decision === DecisionKind.PLAY_SUPPLY || decision === DecisionKind.DISCARD;
  const handDecision = cardsClickable || decision === DecisionKind.PICK_ACTION_CARD;
  const mustDiscard = Math.max(0, hand.length - 5);
  const discardCommand: CommandInit = { command: { case: "discardCards", value: { cards: chosen } } };
  // The rules ask for exactly this many: the button sends nothing else.
  const canDiscard = chosen.length === mustDiscard && mustDiscard > 0;
  return (
    <section class="panel hand" aria-labelledby="hand-title" data-testid="hand">
      <h2 id="hand-title" tabIndex={-1} data-focus-decision={handDecision ? "" : undefined}>
        {t("hand.title")}
        {view.pick ? ` · ${t("hand.your_card", { card: actionName(view.pick) })}` : ""}
      </h2>
      <div class="cards" role="group" aria-label={t("hand.cards_label")}>
        {hand.length === 0 && <span>{t("hand.empty")}</span>}
        {hand.map((card, index) =>
          cardsClickable ? (
            <button
              class="card"
              aria-pressed={selected.includes(index)}
              aria-label={t("hand.card", { value: card })}
              disabled={busy}
              onClick={() => props.onToggleCard?.(index)}
            >
              {card}
            </button>
          ) : (
            <span class="card" role="img" aria-label={t("hand.card", { value: card })}>
              {card}
            </span>
          ),
        )}
      </div>

      {decision === DecisionKind.PICK_ACTION_CARD && (
        <div class="decide" role="group" aria-label={t("decide.pick_label")}>
          <p>{t("decide.pick")}</p>
          {(view.offered?.cards ?? []).map((card) => {
            const spec = ruleset?.actionCards.find((s) => s.card === card);
            return (
              <button
                class="action-card"
                data-card={ActionCard[card]}
                disabled={busy}
                onClick={() => submit({ command: { case: "pickActionCard", value: { card } } })}
              >
                <strong>{actionName(card)}</strong>
                {spec && <small>{actionEffect(spec)}</small>}
              </button>
            );
          })}
        </div>
      )}

      {decision === DecisionKind.PLAY_SUPPLY && (
        <div class="decide">
          <p>{t("decide.supply", { most: MOST_PLAYED })}</p>
          <ul class="totals" aria-label={t("decide.totals_label")}>
            {runningTotals(view, ruleset, chosenSum).map((total) => (
              <li class={houseClass(total.house)}>
                {t(total.yours ? "decide.total_yours" : "decide.total", {
                  house: houseName(total.house),
                  land: total.land,
                  played: total.played,
                  yours: total.yours,
                })}{" "}
                <strong>{total.total}</strong>
              </li>
            ))}
          </ul>
          <button
            data-testid="play-supply"
            disabled={busy || chosen.length > MOST_PLAYED}
            onClick={() => submit({ command: { case: "playSupply", value: { cards: chosen } } })}
          >
            {chosen.length ? t("decide.play", { cards: chosen.join(" + ") }) : t("decide.play_none")}
          </button>
        </div>
      )}

      {decision === DecisionKind.DISCARD && (
        <div class="decide">
          <p>{t("decide.discard", { count: mustDiscard })}</p>
          <button data-testid="discard" disabled={busy || !canDiscard} onClick={() => submit(discardCommand)}>
            {chosen.length < mustDiscard
              ? t("decide.discard_more", { count: mustDiscard - chosen.length })
              : chosen.length > mustDiscard
                ? t("decide.discard_fewer", { count: chosen.length - mustDiscard })
                : t("decide.discard_these", { cards: list(chosen.map(String)) })}
          </button>
        </div>
      )}

      {decision === DecisionKind.BUILD && (
        <div class="decide">
          <p>{t("decide.build")}</p>
          <button
            data-testid="pass-build"
            disabled={busy}
            onClick={() => submit({ command: { case: "passBuild", value: {} } })}
          >
            {t("decide.build_nothing")}
          </button>
        </div>
      )}
    </section>
  );
}

export function Happenings(props: { lines: string[]; title?: string }) {
  if (!props.lines.length) return null;
  return (
    <section class="panel log" aria-labelledby="log-title">
      <h2 id="log-title">{props.title ?? t("log.title")}</h2>
      <ol>
        {props.lines.map((line) => (
          <li>{line}</li>
        ))}
      </ol>
    </section>
  );
}

export function RulesPanel(props: { ruleset: Ruleset | null; players: number }) {
  const { ruleset, players } = props;
  if (!ruleset) return null;
  const table = ruleset.cardTable;
  const winners = Array.from({ length: players }, (_, i) => i + 1);
  return (
    <details class="panel rules">
      <summary>{t("rules.title")}</summary>
      <p>
        {t(ruleset.builderMayMove ? "rules.setup_move" : "rules.setup", {
          players: ruleset.players,
          rounds: ruleset.rounds,
          table: table?.name ?? "",
        })}
      </p>
      <table>
        <caption>{t("rules.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("rules.landscape")}</th>
            <th scope="col">{t("rules.conflict_value")}</th>
            {winners.map((k) => (
              <th scope="col">{t("rules.winners", { count: k })}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table?.landscapes.map((spec) => (
            <tr>
              <th scope="row">{landName(spec.type)}</th>
              <td>
                {spec.cp}
                {spec.cpProvisional ? "*" : ""}
              </td>
              {spec.vp.slice(0, players).map((cell) => (
                <td>
                  {cell.points}
                  {cell.provisional ? "*" : ""}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">{t("provisional.note")}</p>
      <h3>{t("rules.actions")}</h3>
      <ul>
        {ruleset.actionCards.map((spec) => (
          <li>
            <strong>{actionName(spec.card)}</strong>: {actionEffect(spec)}
          </li>
        ))}
      </ul>
    </details>
  );
}
