/** What the throwaway database servers (postgres-server.ts, redis-server.ts) share: ports and stopping. */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
  return address.port;
}

/** Resolves when the process has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Sends `signal` to the process group a server was started in (`detached: true`), so a wrapper
 * such as runuser and everything under it get it, and waits for the server's exit.
 */
export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = exitOf(child);
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already: the exit event is on its way.
    }
  }
  await exited;
}

/** Keeps the last `limit` characters a process wrote to `stream`, for an error message when it fails to start. */
export function tailOf(stream: NodeJS.ReadableStream | null, limit = 4_000): () => string {
  let text = "";
  stream?.on("data", (chunk: Buffer) => {
    text = (text + chunk.toString("utf8")).slice(-limit);
  });
  return () => text;
}
