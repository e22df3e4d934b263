// The services as the page reaches them: gRPC-Web clients generated from proto/ (src/gen, made
// by `npm run generate`), the bearer token in each call's metadata, and refusals decoded from the
// status details as docs/CLIENTS.md describes (branch on the reason, word it in the page's
// language).
import { Code, ConnectError, createClient, type CallOptions } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { AiService } from "./gen/verrater/v1/ai_pb";
import { ChatService } from "./gen/verrater/v1/chat_pb";
import { RuleViolationDetailSchema, ViolationCode } from "./gen/verrater/v1/errors_pb";
import { GameService } from "./gen/verrater/v1/game_pb";
import { LobbyService } from "./gen/verrater/v1/lobby_pb";
import { t, tDynamic, type Params } from "./i18n";

const transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
});

export const lobby = createClient(LobbyService, transport);
export const game = createClient(GameService, transport);
export const ai = createClient(AiService, transport);
export const chat = createClient(ChatService, transport);

export function auth(token: string, signal?: AbortSignal): CallOptions {
  return { headers: { authorization: `Bearer ${token}` }, signal };
}

/** A refused call as the page reads it: the status code, the stable reason and its metadata. */
export interface Refusal {
  code: Code;
  reason: string;
  metadata: Record<string, string>;
}

export function refusal(error: unknown): Refusal {
  const failure = ConnectError.from(error);
  const info = failure.findDetails(ErrorInfoSchema)[0];
  return {
    code: failure.code,
    reason: info?.reason ?? Code[failure.code] ?? "UNKNOWN",
    metadata: info?.metadata ?? {},
  };
}

/** What to tell a person about a refusal, in the page's language: worded from the stable
 * reason and its metadata (docs/CLIENTS.md, "Reasons"), and for a rule the game refused, from
 * the rule's code; never the server's English message. */
export function explain(error: unknown): string {
  const refused = refusal(error);
  const failure = ConnectError.from(error);
  const rule = failure.findDetails(RuleViolationDetailSchema)[0];
  if (refused.reason === "RULE_VIOLATION" && rule) {
    const name = ViolationCode[rule.code] ?? "UNSPECIFIED";
    return tDynamic(`violation.${name}`, refused.metadata, t("violation.UNSPECIFIED"));
  }
  const params: Params = { ...refused.metadata };
  if (refused.metadata.retry_after_ms) {
    params.seconds = Math.max(1, Math.ceil(Number(refused.metadata.retry_after_ms) / 1000));
  }
  const worded = tDynamic(`reason.${refused.reason}`, params, t("reason.UNKNOWN", { reason: refused.reason }));
  // A refusal with a scope may have words of its own (a crowded table's chat is not the
  // browser's many games).
  const scope = refused.metadata.scope;
  return scope ? tDynamic(`reason.${refused.reason}.${scope}`, params, worded) : worded;
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
