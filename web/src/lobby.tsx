// The lobby: registering, the player's games, new tables (with bots, quick match, private with
// an invite link), joining by invite code, spectating by link, and a table until it starts.
import { useEffect, useState } from "preact/hooks";
import { auth, explain, lobby, newId, refusal, sleep } from "./api";
import { GameScreen } from "./game";
import { BotLevel } from "./gen/verrater/v1/events_pb";
import { TableStatus, type MyGame, type Table } from "./gen/verrater/v1/lobby_pb";
import { go, link } from "./routes";
import { forget, Session, type Seat } from "./session";
import { t } from "./i18n";
import { botName, enumValues, levelStrength } from "./words";

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
      <h1 id="register-title">{t("register.title")}</h1>
      <p>{t("register.intro")}</p>
      <form onSubmit={submit}>
        <label for="name">{t("register.name")}</label>
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
          {t("register.start")}
        </button>
      </form>
      <p class="hint">{t("register.kept")}</p>
      {problem && <p role="alert" class="problem">{problem}</p>}
    </section>
  );
}

/** Every bot level the contract names, easiest first: a level it gains is offered as it is. */
const LEVELS: BotLevel[] = enumValues(BotLevel);

function statusWords(game: MyGame): string {
  if (game.finished) return t("games.finished", { vp: game.finalVp, rank: game.rank });
  switch (game.status) {
    case TableStatus.STARTED:
      return t(game.yourTurn ? "games.your_turn" : "games.round", { round: game.round });
    case TableStatus.OPEN:
      return t("games.open");
    case TableStatus.FULL:
      return t("games.full");
    case TableStatus.STARTING:
      return t("games.starting");
    default:
      return t("games.closed");
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
        <h1 id="new-title">{t("home.new")}</h1>
        <div class="options">
          <label>
            {t("home.players")}{" "}
            <select value={size} onChange={(e) => setSize(Number(e.currentTarget.value))}>
              <option value={3}>3</option>
              <option value={4}>4</option>
            </select>
          </label>
          <label>
            {t("home.bots")}{" "}
            <select value={level} onChange={(e) => setLevel(Number(e.currentTarget.value))}>
              {LEVELS.map((value) => (
                <option value={value}>{botName(value)}</option>
              ))}
            </select>
          </label>
          <p class="level-strength" data-testid="level-strength">
            {levelStrength(level)}
          </p>
          <label>
            {t("home.clock")}{" "}
            <select value={timer} onChange={(e) => setTimer(Number(e.currentTarget.value))}>
              <option value={0}>{t("home.clock_none")}</option>
              <option value={60}>{t("home.minutes", { count: 1 })}</option>
              <option value={300}>{t("home.minutes", { count: 5 })}</option>
              <option value={86400}>{t("home.days", { count: 1 })}</option>
            </select>
          </label>
        </div>
        <div class="actions">
          <button onClick={withBots} disabled={busy}>
            {t("home.bots_game")}
          </button>
          <button onClick={quickMatch} disabled={busy}>
            {t("home.quick")}
          </button>
          <button onClick={privateTable} disabled={busy}>
            {t("home.private")}
          </button>
        </div>
        {problem && <p role="alert" class="problem">{problem}</p>}
      </section>

      <section class="panel" aria-labelledby="games-title">
        <h2 id="games-title">{t("games.title")}</h2>
        {games === null ? (
          <p>{t("games.loading")}</p>
        ) : games.length === 0 ? (
          <p>{t("games.none")}</p>
        ) : (
          <ul class="games">
            {games.map((item) => (
              <li>
                <span>{t("games.item", { table: item.tableId, status: statusWords(item) })}</span>{" "}
                {item.finished ? (
                  <>
                    <a href={`#watch/${item.gameId}`}>{t("games.final_board")}</a> ·{" "}
                    <a href={`#replay/${item.gameId}`}>{t("games.replay")}</a>
                  </>
                ) : (
                  <a href={`#play/${item.tableId}`}>{item.gameId ? t("games.resume") : t("games.open_table")}</a>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="panel" aria-labelledby="join-title">
        <h2 id="join-title">{t("join.title")}</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            go(`#join/${encodeURIComponent(joinTable.trim())}/${encodeURIComponent(joinCode.trim())}`);
          }}
        >
          <label>
            {t("join.table")}{" "}
            <input value={joinTable} required onInput={(e) => setJoinTable(e.currentTarget.value)} />
          </label>
          <label>
            {t("join.code")}{" "}
            <input value={joinCode} onInput={(e) => setJoinCode(e.currentTarget.value)} />
          </label>
          <button type="submit">{t("join.join")}</button>
        </form>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            go(`#watch/${encodeURIComponent(watchGame.trim())}`);
          }}
        >
          <label>
            {t("join.game")}{" "}
            <input value={watchGame} required onInput={(e) => setWatchGame(e.currentTarget.value)} />
          </label>
          <button type="submit">{t("join.watch")}</button>
        </form>
        <p class="hint">
          {t("join.you_are", { name: session.identity.name })}{" "}
          <button
            class="link"
            onClick={() => {
              if (window.confirm(t("join.forget_confirm"))) {
                forget();
                props.onForget();
              }
            }}
          >
            {t("join.forget")}
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
      <h1>{t("join.joining")}</h1>
      {problem && <p role="alert" class="problem">{problem}</p>}
      <a href="#">{t("nav.lobby")}</a>
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
            setProblem(explain(error));
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
  const invite = table ? link(`#join/${table.tableId}/${encodeURIComponent(table.inviteCode)}`) : "";
  const hostAct = async (work: (token: string) => Promise<unknown>) => {
    try {
      await work(await session.token());
    } catch (error) {
      setProblem(explain(error));
    }
  };
  return (
    <section class="panel narrow" aria-labelledby="table-title">
      <h1 id="table-title">{t("table.title", { table: tableId })}</h1>
      {!table ? (
        <p>{t("table.loading")}</p>
      ) : (
        <>
          <p aria-live="polite">
            {table.status === TableStatus.CLOSED
              ? t("table.closed")
              : free
                ? t("table.waiting", { count: free })
                : t("table.full")}
          </p>
          <ol class="seats">
            {table.seats.map((s) => (
              <li class={`seat-${s.seat}`}>
                {s.displayName || (s.playerId ? t("table.a_player") : t("table.free_seat"))}
                {s.botLevel ? ` (${botName(s.botLevel)})` : ""}
              </li>
            ))}
          </ol>
          {table.private && table.inviteCode && (
            <p>
              <label>
                {t("table.invite_link")} <input readOnly value={invite} class="wide" />
              </label>
              <br />
              {t("table.id_label")} <strong data-testid="table-id">{table.tableId}</strong>
              <br />
              {t("table.invite_code")} <strong data-testid="invite-code">{table.inviteCode}</strong>
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
              {t("table.add_bot")}
            </button>
          )}
          {host && table.status === TableStatus.FULL && (
            <button
              onClick={() =>
                hostAct((token) => lobby.startGame({ tableId, requestId: newId() }, auth(token)))
              }
            >
              {t("table.start")}
            </button>
          )}
        </>
      )}
      {problem && <p role="alert" class="problem">{problem}</p>}
      <p>
        <a href="#">{t("nav.lobby")}</a>
      </p>
    </section>
  );
}
