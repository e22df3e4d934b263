// Where the page is: the address's hash (#play/<table>, #watch/<game>, #join/<table>/<code>,
// #replay/<game>/<step>), so links and reloads land where they point.
export type Route =
  | { name: "home" }
  | { name: "play"; tableId: string }
  | { name: "watch"; gameId: string }
  | { name: "join"; tableId: string; code: string }
  | { name: "replay"; gameId: string; step: number | null };

export function parseRoute(hash: string): Route {
  const [name, first, second] = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (name === "play" && first) return { name: "play", tableId: first };
  if (name === "watch" && first) return { name: "watch", gameId: first };
  if (name === "join" && first) return { name: "join", tableId: first, code: second ?? "" };
  if (name === "replay" && first) {
    const step = Number(second);
    return { name: "replay", gameId: first, step: second && Number.isInteger(step) ? step : null };
  }
  return { name: "home" };
}

export function go(hash: string): void {
  window.location.hash = hash;
}

/** The page's address for a hash: what a player shares. */
export function link(hash: string): string {
  return `${window.location.origin}/${hash}`;
}
