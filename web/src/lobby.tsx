// The lobby: registering, the player's games, new tables (with bots, quick match, private with
// an invite link), joining by invite code, spectating by link, and a table until it starts.
import { useEffect, useState } from "preact/hooks";
import { auth, explain, lobby, newId, refusal, sleep } from "./api";
import { GameScreen } from "./game";
import { BotLevel } from "./gen/verrater/v1/events_pb";
import { TableStatus, type MyGame, type Table } from "./gen/verrater/v1/lobby_pb";
import { go } from "./routes";
import { forget, Session, type Seat } from "./session";
import { BOT } from "./words";

export function Register(props: { onRegistered: (session: Session) => void }) {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      props.onRegistered(await Session.register(name.trim()));
    } catch (error) {
      setProblem(explain(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel narrow" aria-labelledby="register-title">
      <h1 id="register-title">Welcome to Verräter</h1>
      <p>
        Two houses, Eagle and Rose, fight over twelve landscapes. You back one of them, and may
        betray it when the other side pays better.
      </p>
      <form onSubmit={submit}>
        <label for="name">Your name</label>
        <input
          id="name"
          name="name"
          required
          minLength={3}
          maxLength={24}
          autoComplete="nickname"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Start playing
        </button>
      </form>
      <p class="hint">
        This browser keeps your guest key, so a reload or a new tab brings you back to your games.
      </p>
      {problem && <p role="alert" class="problem">{problem}</p>}
    </section>
  );
}

const LEVELS = [BotLevel.EASY, BotLevel.NORMAL, BotLevel.HARD];

function statusWords(game: MyGame): string {
  if (game.finished) return `finished: ${game.finalVp} VP, rank ${game.rank}`;
  switch (game.status) {
    case TableStatus.STARTED:
      return `round ${game.round}${game.yourTurn ? ", your turn" : ""}`;
    case TableStatus.OPEN:
      return "waiting for players";
    case TableStatus.FULL:
      return "full, waiting to start";
    case TableStatus.STARTING:
      return "starting";
    default:
      return "closed";
  }
}

export function Home(props: { session: Session; onForget: () => void }) {
  const { session } = props;
  const [games, setGames] = useState<MyGame[] | null>(null);
  const [size, setSize] = useState(4);
  const [level, setLevel] = useState(BotLevel.NORMAL);
  const [timer, setTimer] = useState(0);
  const [joinTable, setJoinTable] = useState("");
  const [joinCode, setJoinCode] = useState("");
  const [watchGame, setWatchGame] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    session
      .token()
      .then((token) => lobby.listMyGames({}, auth(token)))
      .then(
        (answer) => live && setGames(answer.games),
        (error) => live && setProblem(explain(error)),
      );
    return () => {
      live = false;
    };
  }, [session]);

  const act = async (work: (token: string) => Promise<void>) => {
    setBusy(true);
    setProblem("");
    try {
      await work(await session.token());
    } catch (error) {
      setProblem(explain(error));
    } finally {
      setBusy(false);
    }
  };

  const withBots = () =>
    act(async (token) => {
      const created = await lobby.createTable(
        { size, turnSeconds: timer, requestId: newId() },
        auth(token),
      );
      const tableId = created.table!.tableId;
      for (let seat = 1; seat < size; seat++) {
        await lobby.addBot({ tableId, level, requestId: newId() }, auth(token));
      }
      await lobby.startGame({ tableId, requestId: newId() }, auth(token));
      go(`#play/${tableId}`);
    });
  const quickMatch = () =>
    act(async (token) => {
      const answer = await lobby.quickMatch(
        { size, fillWithBotsAfterSeconds: 15, botLevel: level, requestId: newId() },
        auth(token),
      );
      go(`#play/${answer.table!.tableId}`);
    });
  const privateTable = () =>
    act(async (token) => {
      const answer = await lobby.createTable(
        { size, private: true, turnSeconds: timer, requestId: newId() },
        auth(token),
      );
      go(`#play/${answer.table!.tableId}`);
    });

  return (
    <div class="home">
      <section class="panel" aria-labelledby="new-title">
        <h1 id="new-title">New game</h1>
        <div class="options">
          <label>
            Players{" "}
            <select value={size} onChange={(e) => setSize(Number(e.currentTarget.value))}>
              <option value={3}>3</option>
              <option value={4}>4</option>
            </select>
          </label>
          <label>
            Bots{" "}
            <select value={level} onChange={(e) => setLevel(Number(e.currentTarget.value))}>
              {LEVELS.map((value) => (
                <option value={value}>{BOT[value]}</option>
              ))}
            </select>
          </label>
          <label>
            Turn clock{" "}
            <select value={timer} onChange={(e) => setTimer(Number(e.currentTarget.value))}>
              <option value={0}>none</option>
              <option value={60}>1 minute</option>
              <option value={300}>5 minutes</option>
              <option value={86400}>1 day</option>
            </select>
          </label>
        </div>
        <div class="actions">
          <button onClick={withBots} disabled={busy}>
            Play against bots
          </button>
          <button onClick={quickMatch} disabled={busy}>
            Quick match
          </button>
          <button onClick={privateTable} disabled={busy}>
            Private table for friends
          </button>
        </div>
        {problem && <p role="alert" class="problem">{problem}</p>}
      </section>

      <section class="panel" aria-labelledby="games-title">
        <h2 id="games-title">Your games</h2>
        {games === null ? (
          <p>Looking for your games…</p>
        ) : games.length === 0 ? (
          <p>No games yet.</p>
        ) : (
          <ul class="games">
            {games.map((item) => (
              <li>
                <span>
                  Table {item.tableId.slice(0, 6)}: {statusWords(item)}
                </span>{" "}
                {item.finished ? (
                  <a href={`#watch/${item.gameId}`}>Final board</a>
                ) : (
                  <a href={`#play/${item.tableId}`}>{item.gameId ? "Resume" : "Open"}</a>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="panel" aria-labelledby="join-title">
        <h2 id="join-title">Join or watch</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            go(`#join/${encodeURIComponent(joinTable.trim())}/${encodeURIComponent(joinCode.trim())}`);
          }}
        >
          <label>
            Table{" "}
            <input value={joinTable} required onInput={(e) => setJoinTable(e.currentTarget.value)} />
          </label>
          <label>
            Invite code{" "}
            <input value={joinCode} onInput={(e) => setJoinCode(e.currentTarget.value)} />
          </label>
          <button type="submit">Join</button>
        </form>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            go(`#watch/${encodeURIComponent(watchGame.trim())}`);
          }}
        >
          <label>
            Game{" "}
            <input value={watchGame} required onInput={(e) => setWatchGame(e.currentTarget.value)} />
          </label>
          <button type="submit">Watch</button>
        </form>
        <p class="hint">
          Playing on another device? Keep this page's guest key safe; you are{" "}
          <strong>{session.identity.name}</strong>.{" "}
          <button
            class="link"
            onClick={() => {
              if (window.confirm("Forget this guest? Its games stay on the server.")) {
                forget();
                props.onForget();
              }
            }}
          >
            Forget me
          </button>
        </p>
      </section>
    </div>
  );
}

/** Join a table by its id and invite code (a link #join/<table>/<code>), then go to it. */
export function JoinScreen(props: { session: Session; tableId: string; code: string }) {
  const [problem, setProblem] = useState("");
  useEffect(() => {
    const join = async () => {
      const token = await props.session.token();
      try {
        await lobby.joinTable(
          { tableId: props.tableId, inviteCode: props.code, requestId: newId() },
          auth(token),
        );
      } catch (error) {
        if (refusal(error).reason !== "ALREADY_SEATED") throw error;
      }
      go(`#play/${props.tableId}`);
    };
    join().catch((error) => setProblem(explain(error)));
  }, [props.tableId, props.code]);
  return (
    <section class="panel narrow">
      <h1>Joining the table…</h1>
      {problem && <p role="alert" class="problem">{problem}</p>}
      <a href="#">Back to the lobby</a>
    </section>
  );
}

/** A table until its game starts (seats, invite link, the host's buttons), then the game. */
export function TableScreen(props: { session: Session; tableId: string }) {
  const { session, tableId } = props;
  const [table, setTable] = useState<Table | null>(null);
  const [seat, setSeat] = useState<Seat | null>(null);
  const [problem, setProblem] = useState("");

  useEffect(() => {
    const stop = new AbortController();
    const follow = async () => {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          const token = await session.token();
          const first = await lobby.getTable({ tableId }, auth(token, stop.signal));
          let current = first.table!;
          setTable(current);
          if (current.status !== TableStatus.STARTED) {
            for await (const change of lobby.watchTable({ tableId }, auth(token, stop.signal))) {
              current = change.table!;
              setTable(current);
            }
          }
          if (current.status === TableStatus.STARTED) {
            setSeat(await session.seat(tableId));
            return;
          }
          if (current.status === TableStatus.CLOSED) return;
        } catch (error) {
          if (stop.signal.aborted) return;
          const refused = refusal(error);
          if (["TABLE_NOT_FOUND", "NOT_SEATED", "INVALID_ID"].includes(refused.reason)) {
            setProblem(refused.message);
            return;
          }
          if (refused.reason === "TOKEN_EXPIRED") session.drop();
          setProblem(explain(error));
          await sleep(Math.min(10_000, 500 * 2 ** attempt), stop.signal);
        }
      }
    };
    follow();
    return () => stop.abort();
  }, [tableId]);

  if (seat) {
    return <GameScreen session={session} gameId={seat.gameId} tableId={tableId} />;
  }
  const host = table?.hostPlayerId === session.identity.playerId;
  const free = table ? table.seats.filter((s) => !s.playerId).length : 0;
  const link = table
    ? `${window.location.origin}/#join/${table.tableId}/${encodeURIComponent(table.inviteCode)}`
    : "";
  const hostAct = async (work: (token: string) => Promise<unknown>) => {
    try {
      await work(await session.token());
    } catch (error) {
      setProblem(explain(error));
    }
  };
  return (
    <section class="panel narrow" aria-labelledby="table-title">
      <h1 id="table-title">Table {tableId.slice(0, 6)}</h1>
      {!table ? (
        <p>Loading the table…</p>
      ) : (
        <>
          <p aria-live="polite">
            {table.status === TableStatus.CLOSED
              ? "This table was closed."
              : free
                ? `Waiting for ${free} more player${free > 1 ? "s" : ""}.`
                : "The table is full."}
          </p>
          <ol class="seats">
            {table.seats.map((s) => (
              <li class={`seat-${s.seat}`}>
                {s.displayName || (s.playerId ? "a player" : "free seat")}
                {s.botLevel ? ` (${BOT[s.botLevel]})` : ""}
              </li>
            ))}
          </ol>
          {table.private && table.inviteCode && (
            <p>
              Invite link: <input readOnly value={link} aria-label="Invite link" class="wide" />
              <br />
              Invite code: <strong>{table.inviteCode}</strong>
            </p>
          )}
          {host && table.status === TableStatus.OPEN && (
            <button
              onClick={() =>
                hostAct((token) =>
                  lobby.addBot({ tableId, level: BotLevel.NORMAL, requestId: newId() }, auth(token)),
                )
              }
            >
              Add a bot
            </button>
          )}
          {host && table.status === TableStatus.FULL && (
            <button
              onClick={() =>
                hostAct((token) => lobby.startGame({ tableId, requestId: newId() }, auth(token)))
              }
            >
              Start the game
            </button>
          )}
        </>
      )}
      {problem && <p role="alert" class="problem">{problem}</p>}
      <p>
        <a href="#">Back to the lobby</a>
      </p>
    </section>
  );
}
