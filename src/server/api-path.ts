/** Percent-escapes are undone this many times over (`%2561` → `%61` → `a`). */
const DECODE_ROUNDS = 4;

/**
 * True when a request target names something under `/api`, however it is spelled:
 * percent-escapes, `.`/`..` and empty segments, backslashes, `;` parameters, upper case or the
 * absolute form `http://host/api/…`. A target that cannot be read counts as an API path too,
 * so it gets the API's guard and a 404 rather than the console page.
 */
export function namesApiPath(target: string): boolean {
  let text = target;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    // Only ASCII escapes: they are all that can spell "api", "/" or ".", and a malformed
    // escape elsewhere in the path must not stop the others from being read.
    const decoded = text.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (decoded === text) break;
    text = decoded;
  }
  let path: string;
  try {
    // A leading "//" must stay part of the path, not become a host name.
    path = new URL(/^[/\\]/.test(text) ? `http://host${text}` : text).pathname;
  } catch {
    return true;
  }
  const first = path.split("/").find((segment) => segment !== "") ?? "";
  return first.split(";")[0]?.toLowerCase() === "api";
}
