// The table's chat beside the board (named by the table, or for a spectator who came by a link
// to the game, by the game): WatchChat from the last cursor (resumed after a dropped
// stream: nothing missed, nothing repeated) and SendChatMessage, as docs/CLIENTS.md's "Table
// chat" says. Collapsible (collapsed at first on a phone), with the count of messages that came
// while it was collapsed. What the server refuses (too fast, too long, closed) is worded from the
// refusal's reason.
import { useEffect, useRef, useState } from "preact/hooks";
import { auth, chat, explain, refusal, sleep } from "./api";
import { ChatChannel, type ChatMessage } from "./gen/verrater/v1/chat_pb";
import { t } from "./i18n";
import type { Session } from "./session";

/** Messages asked for when the chat opens, and kept on the page. */
const BACKLOG = 50;
/** The most characters a message may have (the server counts after normalising). */
const MAX_CHARACTERS = 280;
const NARROW = "(max-width: 899px)";

/** Which table's chat: by the table's id, or by its game's (a spectator's link names the game). */
export type ChatPlace = { tableId: string; gameId?: undefined } | { gameId: string; tableId?: undefined };

export function Chat(props: { session: Session } & ChatPlace) {
  const { session } = props;
  const place = props.tableId ? { tableId: props.tableId } : { gameId: props.gameId };
  const key = props.tableId ?? `game:${props.gameId}`;
  // A game without a table (a sandbox) has no chat: the panel goes.
  const [none, setNone] = useState(false);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [open, setOpen] = useState(() => !window.matchMedia(NARROW).matches);
  const [unread, setUnread] = useState(0);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const opened = useRef(open);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    opened.current = open;
    if (open) setUnread(0);
  }, [open]);

  useEffect(() => {
    const stop = new AbortController();
    let cursor = "";
    const follow = async () => {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          const stream = chat.watchChat(
            { ...place, cursor, backlog: cursor ? 0 : BACKLOG },
            auth(await session.token(), stop.signal),
          );
          for await (const answer of stream) {
            attempt = 0;
            const message = answer.message!;
            cursor = message.cursor;
            setMessages((old) => [...old.slice(-(BACKLOG - 1)), message]);
            if (!opened.current) setUnread((count) => count + 1);
          }
        } catch (error) {
          if (stop.signal.aborted) return;
          if (place.gameId && refusal(error).reason === "TABLE_NOT_FOUND") {
            setNone(true);
            return;
          }
          setProblem(explain(error));
        }
        await sleep(Math.min(10_000, 300 * 2 ** attempt), stop.signal);
      }
    };
    follow();
    return () => stop.abort();
  }, [key]);

  useEffect(() => {
    const shown = list.current;
    if (shown) shown.scrollTop = shown.scrollHeight;
  }, [messages.length, open]);

  const send = async (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setProblem("");
    const sent = text;
    try {
      await chat.sendChatMessage({ ...place, text: sent }, auth(await session.token()));
      setText((typed) => (typed === sent ? "" : typed)); // not what was typed meanwhile
    } catch (error) {
      setProblem(explain(error));
    } finally {
      setBusy(false);
    }
  };

  if (none) return null;
  return (
    <section class="panel chat" aria-labelledby="chat-title" data-testid="chat">
      <h2 id="chat-title">
        <button
          class="chat-toggle"
          aria-expanded={open ? "true" : "false"}
          aria-controls="chat-body"
          onClick={() => setOpen(!open)}
        >
          {t("chat.title")}
          {unread > 0 && (
            <span class="unread" data-testid="chat-unread">
              {t("chat.unread", { count: unread })}
            </span>
          )}
        </button>
      </h2>
      {open && (
        <div id="chat-body">
          {messages.length ? (
            <ol class="chat-messages" ref={list} aria-live="polite">
              {messages.map((message) => (
                <li data-cursor={message.cursor}>
                  {message.channel === ChatChannel.SPECTATORS && <span class="stands">{t("chat.stands")} </span>}
                  <strong>{message.displayName}:</strong> {message.text}
                </li>
              ))}
            </ol>
          ) : (
            <p class="hint">{t("chat.empty")}</p>
          )}
          {problem && (
            <p class="problem" role="alert" data-testid="chat-problem">
              {problem}
            </p>
          )}
          <form class="chat-form" onSubmit={send}>
            <input
              type="text"
              value={text}
              maxLength={MAX_CHARACTERS}
              aria-label={t("chat.message")}
              onInput={(event) => setText((event.target as HTMLInputElement).value)}
            />
            <button type="submit" disabled={busy || !text.trim()}>
              {t("chat.send")}
            </button>
          </form>
        </div>
      )}
    </section>
  );
}
