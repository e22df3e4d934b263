// Beside the board: the players (house, VP, hand count, played cards), your hand and what the
// current decision asks of it (the draft, the supply with running totals per house, the
// discard), what just happened, and the rules panel generated from the game's ruleset.
import { House } from "./gen/verrater/v1/cards_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import { DecisionKind, type PlayerView } from "./gen/verrater/v1/view_pb";
import { landscapeCp, type CommandInit } from "./legal";
import { ACTION, BOT, HOUSE, LANDSCAPE, actionEffect, seatName } from "./words";

interface PanelsProps {
  view: PlayerView;
  ruleset: Ruleset | null;
  decision: DecisionKind | undefined;
  selected: number[];
  busy: boolean;
  bonus: Record<number, number>;
  log: string[];
  onToggleCard: (index: number) => void;
  onSubmit: (command: CommandInit) => void;
}

/** The supply cards of this round's conflict so far: each house's landscape plus the cards of
 * those backing it (and the caller's selection, not yet played). Diplomats and the traitor show
 * only at the reveal. */
function runningTotals(view: PlayerView, ruleset: Ruleset | null, extra: number) {
  const totals = [House.EAGLE, House.ROSE].map((house) => {
    let land = 0;
    let position = -1;
    if (view.conflict) {
      for (const at of [view.conflict.first, view.conflict.second]) {
        if (view.ring[at]?.house === house) {
          land = landscapeCp(ruleset, view.ring[at].type).cp;
          position = at;
        }
      }
    }
    const seats = view.seats.filter((seat) => seat.house === house);
    const played = seats.reduce((sum, seat) => sum + (seat.played?.cards.reduce((a, b) => a + b, 0) ?? 0), 0);
    const yours = view.seat !== undefined && view.seats[view.seat]?.house === house ? extra : 0;
    return { house, land, position, played, yours, total: land + played + yours };
  });
  return totals;
}

export function Panels(props: PanelsProps) {
  const { view, ruleset, decision, selected, busy } = props;
  const hand = view.hand?.cards ?? [];
  const chosen = selected.map((index) => hand[index]).filter((card) => card !== undefined);
  const chosenSum = chosen.reduce((a, b) => a + b, 0);
  const cardsClickable = decision === DecisionKind.PLAY_SUPPLY || decision === DecisionKind.DISCARD;
  const mustDiscard = Math.max(0, hand.length - 5);
  return (
    <div class="panels">
      <section class="panel players" aria-labelledby="players-title">
        <h2 id="players-title">Players</h2>
        <ul>
          {view.seats.map((seat) => (
            <li class={`player seat-${seat.seat} ${view.turn?.seats.includes(seat.seat) ? "acting" : ""}`}>
              <span class="chip" aria-hidden="true" />
              <strong>{seatName(view, seat.seat)}</strong>
              {seat.botLevel ? <span class="tag"> {BOT[seat.botLevel]}</span> : null}
              {view.startPlayer === seat.seat && <span class="tag" title="start player"> ★ start</span>}
              {view.strategist === seat.seat && <span class="tag" title="strategist"> ⚑ strategist</span>}
              <br />
              <span class={`house-tag house-${HOUSE[seat.house]?.toLowerCase()}`}>{HOUSE[seat.house]}</span>{" "}
              · {seat.vp} VP · {seat.handCount} cards · {seat.unplacedBuildings} buildings left
              {seat.tradingPosts ? ` · ${seat.tradingPosts} trading posts` : ""}
              {props.bonus[seat.seat] ? ` · +${props.bonus[seat.seat]} trading-post bonus` : ""}
              <br />
              <span class="played">
                {seat.played
                  ? seat.played.cards.length
                    ? `Played ${seat.played.cards.join(" + ")}`
                    : "Played no cards"
                  : view.seats.some((s) => s.played)
                    ? "Not played yet"
                    : ""}
                {seat.revealedPick ? ` · ${ACTION[seat.revealedPick]}` : seat.hasPicked ? " · has picked" : ""}
              </span>
            </li>
          ))}
        </ul>
      </section>

      {view.seat !== undefined && (
        <section class="panel hand" aria-labelledby="hand-title">
          <h2 id="hand-title">Your hand{view.pick ? ` · your action card: ${ACTION[view.pick]}` : ""}</h2>
          <div class="cards" role="group" aria-label="Your supply cards">
            {hand.length === 0 && <span>No cards.</span>}
            {hand.map((card, index) =>
              cardsClickable ? (
                <button
                  class="card"
                  aria-pressed={selected.includes(index)}
                  aria-label={`Supply card ${card}`}
                  disabled={busy}
                  onClick={() => props.onToggleCard(index)}
                >
                  {card}
                </button>
              ) : (
                <span class="card" aria-label={`Supply card ${card}`}>
                  {card}
                </span>
              ),
            )}
          </div>

          {decision === DecisionKind.PICK_ACTION_CARD && (
            <div class="decide" role="group" aria-label="Pick an action card">
              <p>Keep one of these action cards:</p>
              {(view.offered?.cards ?? []).map((card) => {
                const spec = ruleset?.actionCards.find((s) => s.card === card);
                return (
                  <button
                    class="action-card"
                    disabled={busy}
                    onClick={() => props.onSubmit({ command: { case: "pickActionCard", value: { card } } })}
                  >
                    <strong>{ACTION[card]}</strong>
                    {spec && <small>{actionEffect(spec)}</small>}
                  </button>
                );
              })}
            </div>
          )}

          {decision === DecisionKind.PLAY_SUPPLY && (
            <div class="decide">
              <p>Click the cards to play for your house (up to 5), then play them.</p>
              <ul class="totals" aria-label="Running totals per house">
                {runningTotals(view, ruleset, chosenSum).map((t) => (
                  <li class={`house-${HOUSE[t.house].toLowerCase()}`}>
                    {HOUSE[t.house]}: {t.land} landscape + {t.played} played
                    {t.yours ? ` + ${t.yours} yours` : ""} = <strong>{t.total}</strong>
                  </li>
                ))}
              </ul>
              <button
                disabled={busy}
                onClick={() => props.onSubmit({ command: { case: "playSupply", value: { cards: chosen } } })}
              >
                {chosen.length ? `Play ${chosen.join(" + ")}` : "Play no cards"}
              </button>
            </div>
          )}

          {decision === DecisionKind.DISCARD && (
            <div class="decide">
              <p>
                Over the hand limit: choose {mustDiscard} card{mustDiscard === 1 ? "" : "s"} to discard.
              </p>
              <button
                disabled={busy}
                onClick={() => props.onSubmit({ command: { case: "discardCards", value: { cards: chosen } } })}
              >
                Discard {chosen.length ? chosen.join(", ") : "nothing"}
              </button>
            </div>
          )}

          {decision === DecisionKind.BUILD && (
            <div class="decide">
              <p>You hold the builder: build on the board, or</p>
              <button
                disabled={busy}
                onClick={() => props.onSubmit({ command: { case: "passBuild", value: {} } })}
              >
                Build nothing
              </button>
            </div>
          )}
        </section>
      )}

      {props.log.length > 0 && (
        <section class="panel log" aria-labelledby="log-title">
          <h2 id="log-title">What happened</h2>
          <ol>
            {props.log.map((line) => (
              <li>{line}</li>
            ))}
          </ol>
        </section>
      )}

      <RulesPanel ruleset={ruleset} players={view.seats.length} />
    </div>
  );
}

function RulesPanel(props: { ruleset: Ruleset | null; players: number }) {
  const { ruleset, players } = props;
  if (!ruleset) return null;
  const table = ruleset.cardTable;
  const winners = Array.from({ length: players }, (_, i) => i + 1);
  return (
    <details class="panel rules">
      <summary>Rules and cards</summary>
      <p>
        {ruleset.players} players, {ruleset.rounds} rounds
        {ruleset.builderMayMove ? "; the builder may move a building" : ""}. Card table: {table?.name}.
      </p>
      <table>
        <caption>Landscapes: conflict value and VP each winner gains, by number of winners</caption>
        <thead>
          <tr>
            <th scope="col">Landscape</th>
            <th scope="col">Conflict</th>
            {winners.map((k) => (
              <th scope="col">
                {k} winner{k > 1 ? "s" : ""}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table?.landscapes.map((spec) => (
            <tr>
              <th scope="row">
                {LANDSCAPE[spec.type]} ({spec.german})
              </th>
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
      <p class="hint">* provisional: a reconstruction awaiting a check against the printed card.</p>
      <h3>Action cards</h3>
      <ul>
        {ruleset.actionCards.map((spec) => (
          <li>
            <strong>
              {ACTION[spec.card]} ({spec.german})
            </strong>
            : {actionEffect(spec)}
          </li>
        ))}
      </ul>
    </details>
  );
}
