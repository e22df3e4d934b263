// The services as the page reaches them: gRPC-Web clients generated from proto/ (src/gen, made
// by `npm run generate`), the bearer token in each call's metadata, and refusals decoded from the
// status details as docs/CLIENTS.md describes (branch on the reason, show the message).
import { Code, ConnectError, createClient, type CallOptions } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { AiService } from "./gen/verrater/v1/ai_pb";
import { RuleViolationDetailSchema } from "./gen/verrater/v1/errors_pb";
import { GameService } from "./gen/verrater/v1/game_pb";
import { LobbyService } from "./gen/verrater/v1/lobby_pb";

const transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
});

export const lobby = createClient(LobbyService, transport);
export const game = createClient(GameService, transport);
export const ai = createClient(AiService, transport);

export function auth(token: string, signal?: AbortSignal): CallOptions {
  return { headers: { authorization: `Bearer ${token}` }, signal };
}

/** A refused call as the page shows it: the stable reason, and the words for people. */
export interface Refusal {
  code: Code;
  reason: string;
  message: string;
  metadata: Record<string, string>;
}

export function refusal(error: unknown): Refusal {
  const failure = ConnectError.from(error);
  const info = failure.findDetails(ErrorInfoSchema)[0];
  const rule = failure.findDetails(RuleViolationDetailSchema)[0];
  return {
    code: failure.code,
    reason: info?.reason ?? Code[failure.code] ?? "UNKNOWN",
    message: rule?.message || failure.rawMessage,
    metadata: info?.metadata ?? {},
  };
}

/** What to tell a person about a refusal: the rules' own words, or what to do next. */
export function explain(error: unknown): string {
  const refused = refusal(error);
  switch (refused.reason) {
    case "STALE_VERSION":
      return "The game moved on before your move arrived: look at the board again.";
    case "RATE_LIMITED":
      return "Too many requests: wait a moment and try again.";
    case "STORE_UNAVAILABLE":
    case "GAME_SERVICE_UNAVAILABLE":
    case "BUSY":
      return "The server is busy: try again in a moment.";
    default:
      return refused.message;
  }
}

/** A random id for request_id and command_id (works without a secure context, unlike
 * crypto.randomUUID). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
