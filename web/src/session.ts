// Who the browser is: the player id and credential kept in localStorage (docs/CLIENTS.md,
// "Sessions and rejoining"), so a reload or a new tab signs in again and finds its games.
// Tokens are short-lived and live in memory only.
import { lobby, newId, auth } from "./api";

const STORAGE_KEY = "verrater.identity";
/** Refresh a token this long before it expires. */
const MARGIN_S = 60;

export interface Identity {
  playerId: string;
  credential: string;
  name: string;
}

export function storedIdentity(): Identity | null {
  try {
    const text = window.localStorage.getItem(STORAGE_KEY);
    const parsed = text ? (JSON.parse(text) as Partial<Identity>) : null;
    if (parsed?.playerId && parsed.credential) {
      return { playerId: parsed.playerId, credential: parsed.credential, name: parsed.name ?? "" };
    }
  } catch {
    // Unreadable storage: register anew.
  }
  return null;
}

export function forget(): void {
  window.localStorage.removeItem(STORAGE_KEY);
}

interface Held {
  token: string;
  expiresAt: number;
}

export interface Seat {
  token: string;
  gameId: string;
  seat: number;
}

export class Session {
  private player: Held | null = null;
  private seats = new Map<string, Held & Seat>();

  constructor(public identity: Identity) {}

  /** Register a guest and keep the credential before anything else (it is shown once). */
  static async register(name: string): Promise<Session> {
    const requestId = newId();
    const answer = await lobby.registerGuest({ displayName: name, requestId });
    const session = answer.session!;
    const identity = {
      playerId: session.playerId,
      credential: session.credential,
      name: session.displayName,
    };
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(identity));
    const signedIn = new Session(identity);
    signedIn.player = { token: session.token, expiresAt: Number(session.expiresAt) };
    return signedIn;
  }

  /** A current player token: SignIn with the stored credential when there is none. */
  async token(): Promise<string> {
    if (this.player && this.player.expiresAt - MARGIN_S > Date.now() / 1000) {
      return this.player.token;
    }
    const answer = await lobby.signIn({
      playerId: this.identity.playerId,
      credential: this.identity.credential,
    });
    const session = answer.session!;
    this.player = { token: session.token, expiresAt: Number(session.expiresAt) };
    if (session.displayName) this.identity.name = session.displayName;
    return session.token;
  }

  /** The seat token of the caller's seat at a started table. */
  async seat(tableId: string): Promise<Seat> {
    const held = this.seats.get(tableId);
    if (held && held.expiresAt - MARGIN_S > Date.now() / 1000) return held;
    const answer = await lobby.getSeatToken({ tableId }, auth(await this.token()));
    const seat = {
      token: answer.token,
      expiresAt: Number(answer.expiresAt),
      gameId: answer.gameId,
      seat: answer.seat,
    };
    this.seats.set(tableId, seat);
    return seat;
  }

  /** Forget a token the server called expired or invalid. */
  drop(tableId?: string): void {
    if (tableId) this.seats.delete(tableId);
    else this.player = null;
  }
}
