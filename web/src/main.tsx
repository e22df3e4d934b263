// The page: sign in (or register once), then the lobby, a table, or a game (routes.ts).
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { explain } from "./api";
import { GameScreen } from "./game";
import { Home, Register, TableScreen, JoinScreen } from "./lobby";
import { parseRoute, type Route } from "./routes";
import { Session, storedIdentity } from "./session";
import "./style.css";

function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const identity = storedIdentity();
    return identity ? new Session(identity) : null;
  });
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  const [problem, setProblem] = useState("");

  useEffect(() => {
    const follow = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);

  useEffect(() => {
    if (!session) return;
    session.token().then(
      () => setProblem(""),
      (error) => setProblem(explain(error)),
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
  } else {
    screen = <Home session={session} onForget={() => setSession(null)} />;
  }
  return (
    <>
      <header class="top">
        <a class="brand" href="#" aria-label="Verräter Online: the lobby">
          Verräter <span>Online</span>
        </a>
        {session && <span class="who">{session.identity.name}</span>}
      </header>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <main id="main">{screen}</main>
    </>
  );
}

const root = document.getElementById("app")!;
root.replaceChildren(); // the "Loading" text the HTML shows until the script runs
render(<App />, root);
