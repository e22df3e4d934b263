// A round's conflict explained: each house's strength by source (its landscape, the cards of
// those backing it, the diplomats), who betrayed, who held which action card, the VP won and
// the landscape that changed sides. A dialog in a live game (it can be opened again), a panel
// in a replay.
import { useEffect, useRef } from "preact/hooks";
import { House } from "./gen/verrater/v1/cards_pb";
import type { Ruleset } from "./gen/verrater/v1/ruleset_pb";
import type { ConflictSummary, PlayerView } from "./gen/verrater/v1/view_pb";
import { t } from "./i18n";
import { landscapeSpec } from "./legal";
import { actionName, houseClass, houseName, landAt, seatName } from "./words";

function Explanation(props: { view: PlayerView; ruleset: Ruleset | null; summary: ConflictSummary; titleId: string }) {
  const { view, ruleset, summary, titleId } = props;
  const sides = [
    { house: House.EAGLE, strength: summary.eagle },
    { house: House.ROSE, strength: summary.rose },
  ];
  const picks = summary.picks.map((pick) => pick.card);
  // Conquest points, and what the action cards pay whatever the outcome (from the ruleset).
  const points = summary.conquestPoints
    .map((vp, seat) => {
      const card = picks[seat];
      const spec = card ? ruleset?.actionCards.find((s) => s.card === card) : undefined;
      return { seat, vp: vp + (spec?.victoryPoints ?? 0) };
    })
    .filter(({ vp }) => vp > 0);
  let starred = false;
  const title = summary.winner
    ? t("conflict.title_won", {
        round: summary.round,
        house: houseName(summary.winner),
        eagle: summary.eagleStrength,
        rose: summary.roseStrength,
      })
    : t("conflict.title_tie", {
        round: summary.round,
        eagle: summary.eagleStrength,
        rose: summary.roseStrength,
      });
  return (
    <>
      <h2 id={titleId}>{title}</h2>
      <div class="sides">
        {sides.map(({ house, strength }) => {
          const type = strength ? view.ring[strength.position]?.type : undefined;
          const provisional = !!type && !!landscapeSpec(ruleset, type)?.cpProvisional;
          starred ||= provisional;
          return (
            <section class={`side ${houseClass(house)}`} aria-label={houseName(house)}>
              <h3>{t("conflict.side", { house: houseName(house), total: strength?.total ?? 0 })}</h3>
              <ul>
                {strength && (
                  <li>
                    {t("conflict.landscape", {
                      land: landAt(view, strength.position),
                      points: strength.landscape,
                    })}
                    {provisional ? "*" : ""}
                  </li>
                )}
                {strength?.seats.map((part) => (
                  <li>{t("conflict.cards", { seat: seatName(view, part.seat), count: part.cards })}</li>
                ))}
                {strength?.diplomats ? <li>{t("conflict.diplomats", { points: strength.diplomats })}</li> : null}
              </ul>
            </section>
          );
        })}
      </div>
      <p>
        {summary.traitor !== undefined
          ? t("conflict.traitor", {
              seat: seatName(view, summary.traitor),
              house: houseName(
                sides.find(({ strength }) => strength?.seats.some((part) => part.seat === summary.traitor))
                  ?.house,
              ),
            })
          : t("conflict.no_traitor")}
      </p>
      <h3>{t("conflict.picks_title")}</h3>
      <ul>
        {picks.map((card, seat) =>
          card ? <li>{t("conflict.pick", { seat: seatName(view, seat), card: actionName(card) })}</li> : null,
        )}
      </ul>
      <h3>{t("conflict.points_title")}</h3>
      <ul>
        {points.length ? (
          points.map(({ seat, vp }) => (
            <li>{t("conflict.points", { seat: seatName(view, seat), count: vp })}</li>
          ))
        ) : (
          <li>{t("conflict.no_points")}</li>
        )}
      </ul>
      {summary.flipped !== undefined && summary.winner ? (
        <p>
          {t("conflict.flipped", { land: landAt(view, summary.flipped), house: houseName(summary.winner) })}
        </p>
      ) : null}
      {starred && (
        <p class="hint" data-testid="provisional-note">
          {t("provisional.note")}
        </p>
      )}
    </>
  );
}

/** The explanation as a modal dialog: focus moves in, Escape or the button closes it. */
export function ConflictDialog(props: {
  view: PlayerView;
  ruleset: Ruleset | null;
  summary: ConflictSummary;
  onClose: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    button.current?.focus();
    return () => before?.focus?.();
  }, [props.summary]);
  return (
    <div class="overlay">
      <div
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="pause-title"
        data-testid="conflict-summary"
        onKeyDown={(event) => {
          if (event.key === "Escape") props.onClose();
          // Focus stays in the dialog: its one control is the button.
          if (event.key === "Tab") {
            event.preventDefault();
            button.current?.focus();
          }
        }}
      >
        <Explanation view={props.view} ruleset={props.ruleset} summary={props.summary} titleId="pause-title" />
        <button ref={button} onClick={props.onClose}>
          {t("conflict.continue")}
        </button>
      </div>
    </div>
  );
}

/** The explanation in the flow of a page (replays). */
export function ConflictPanel(props: { view: PlayerView; ruleset: Ruleset | null; summary: ConflictSummary }) {
  return (
    <section class="panel conflict-panel" aria-labelledby="conflict-panel-title" data-testid="conflict-panel">
      <Explanation view={props.view} ruleset={props.ruleset} summary={props.summary} titleId="conflict-panel-title" />
    </section>
  );
}
