// The page: sign in (or register once), then the lobby, a table, a game, or a replay
// (routes.ts), in German or English (i18n.ts).
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { explain } from "./api";
import { GameScreen } from "./game";
import { LANGUAGE_NAMES, LANGUAGES, language, setLanguage, t, type Language } from "./i18n";
import { Home, JoinScreen, Register, TableScreen } from "./lobby";
import { ReplayScreen } from "./replay";
import { parseRoute, type Route } from "./routes";
import { Session, storedIdentity } from "./session";
import "./style.css";

function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const identity = storedIdentity();
    return identity ? new Session(identity) : null;
  });
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  const [problem, setProblem] = useState<unknown>(null);
  const [lang, setLang] = useState<Language>(language());

  useEffect(() => {
    const follow = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);

  useEffect(() => {
    document.title = t("page.title");
  }, [lang]);

  useEffect(() => {
    if (!session) return;
    session.token().then(
      () => setProblem(null),
      (error) => setProblem(error),
    );
  }, [session]);

  let screen;
  if (!session) {
    screen = <Register onRegistered={setSession} />;
  } else if (route.name === "play") {
    screen = <TableScreen key={route.tableId} session={session} tableId={route.tableId} />;
  } else if (route.name === "watch") {
    screen = <GameScreen key={route.gameId} session={session} gameId={route.gameId} />;
  } else if (route.name === "join") {
    screen = <JoinScreen key={route.tableId} session={session} tableId={route.tableId} code={route.code} />;
  } else if (route.name === "replay") {
    screen = <ReplayScreen key={route.gameId} session={session} gameId={route.gameId} step={route.step} />;
  } else {
    screen = <Home session={session} onForget={() => setSession(null)} />;
  }
  return (
    <>
      <header class="top">
        <a class="brand" href="#" aria-label={t("nav.brand_label")}>
          Verräter <span>Online</span>
        </a>
        <label class="language">
          <span class="visually-hidden">{t("nav.language")}</span>
          <select
            value={lang}
            onChange={(event) => {
              const next = event.currentTarget.value as Language;
              setLanguage(next);
              setLang(next);
            }}
          >
            {(Object.keys(LANGUAGES) as Language[]).map((code) => (
              <option value={code} lang={code}>
                {LANGUAGE_NAMES[code]}
              </option>
            ))}
          </select>
        </label>
        {session && <span class="who">{session.identity.name}</span>}
      </header>
      {problem !== null && (
        <p class="problem" role="alert">
          {explain(problem)}
        </p>
      )}
      <main id="main">{screen}</main>
    </>
  );
}

const root = document.getElementById("app")!;
root.replaceChildren(); // the "Loading" text the HTML shows until the script runs
render(<App />, root);
