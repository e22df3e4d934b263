// "Verified in this browser": a finished game's log (GetLog, public once the game is over)
// checked by verify.ts on this machine, and what was checked, or exactly what failed.
import { useEffect, useState } from "preact/hooks";
import { auth, explain, game } from "./api";
import { t, tDynamic } from "./i18n";
import { verify, type Verdict } from "./verify";

export function Verification(props: { gameId: string; token: () => Promise<string> }) {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [problem, setProblem] = useState("");
  useEffect(() => {
    let live = true;
    props
      .token()
      .then((token) => game.getLog({ gameId: props.gameId }, auth(token)))
      .then(
        (answer) => live && setVerdict(verify(answer.events)),
        (error) => live && setProblem(explain(error)),
      );
    return () => {
      live = false;
    };
  }, [props.gameId]);

  let body;
  if (problem) {
    body = <p class="problem">{t("verify.unavailable", { reason: problem })}</p>;
  } else if (!verdict) {
    body = <p>{t("verify.running")}</p>;
  } else if (!verdict.failures.length) {
    body = (
      <>
        <p class="verified" data-testid="verified">
          ✔ {t("verify.ok")}
        </p>
        <ul>
          <li>{t("verify.chain", { count: verdict.events, head: verdict.head.slice(0, 16) })}</li>
          <li>{t("verify.seed")}</li>
          <li>{t("verify.shuffles", { count: verdict.shuffles })}</li>
          {verdict.explicit.map((key) => (
            <li>{tDynamic(key, undefined, key)}</li>
          ))}
        </ul>
      </>
    );
  } else {
    body = (
      <>
        <p class="failed" data-testid="verify-failed">
          ✘ {t("verify.failed", { count: verdict.failures.length })}
        </p>
        <ul data-testid="verify-failures">
          {verdict.failures.slice(0, 20).map((failure) => (
            <li>
              {t("verify.at", { version: failure.version })}{" "}
              {tDynamic(`verify.${failure.kind}`, failure.params, failure.kind)}
            </li>
          ))}
        </ul>
      </>
    );
  }
  return (
    <section class="verification" aria-labelledby="verify-title" aria-live="polite" data-testid="verification">
      <h3 id="verify-title">{t("verify.title")}</h3>
      {body}
      <p class="hint">{t("verify.how")}</p>
    </section>
  );
}
