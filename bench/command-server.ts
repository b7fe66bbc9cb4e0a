/**
 * One side of the command benchmark, in its own process so no side inherits another's heap:
 * Tsumugi with its ping plugin (this checkout's, or another's: `checkout`), or a bare `ws`
 * server that answers `ping N` with a send_group_msg action and does nothing else. Each serves
 * OneBot reverse WebSocket on 127.0.0.1 and prints `{"url": …}` once it accepts connections; it
 * stops when its stdin closes. argv JSON: { side, checkout? }.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pino from "pino";
import { WebSocketServer } from "ws";
import type * as AppModule from "../src/app.ts";
import type * as ValidateModule from "../src/config/validate.ts";
import type * as LoggerModule from "../src/log/logger.ts";

/** Koishi has its own server script (koishi-command-server.mjs). */
export type ServedSide = "tsumugi" | "bare";

interface Served {
  url: string;
  stop(): Promise<void>;
}

const THIS_CHECKOUT = fileURLToPath(new URL("..", import.meta.url));

/** A module of `checkout`'s source tree. */
async function sourceOf<T>(checkout: string, path: string): Promise<T> {
  return (await import(pathToFileURL(resolve(checkout, path)).href)) as T;
}

async function serveTsumugi(checkout: string): Promise<Served> {
  const { startApp } = await sourceOf<typeof AppModule>(checkout, "src/app.ts");
  const { validateConfig } = await sourceOf<typeof ValidateModule>(checkout, "src/config/validate.ts");
  const { createLogger } = await sourceOf<typeof LoggerModule>(checkout, "src/log/logger.ts");
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-"));
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    plugins: { dirs: [resolve(checkout, "plugins")] },
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  // Info level, as users run it, written to /dev/null.
  const logger = createLogger({
    level: "info",
    destination: pino.destination({ dest: "/dev/null", sync: false }),
  });
  const app = await startApp({ config: validation.config, logger });
  return {
    url: `ws://127.0.0.1:${app.address.port}/onebot/v11/ws`,
    stop: async () => {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The floor: parse the event, answer `ping N` with one send_group_msg frame. */
async function serveBare(): Promise<Served> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/onebot/v11/ws" });
  await new Promise((resolve) => wss.once("listening", resolve));
  let echo = 0;
  wss.on("connection", (socket) => {
    socket.on("message", (data) => {
      const event = JSON.parse(String(data)) as {
        post_type?: string;
        group_id?: number;
        message?: { type: string; data: { text?: string } }[];
      };
      if (event.post_type !== "message") return;
      const text = event.message?.[0]?.data.text ?? "";
      if (!text.startsWith("ping ")) return;
      socket.send(
        JSON.stringify({
          action: "send_group_msg",
          params: {
            group_id: event.group_id,
            message: [{ type: "text", data: { text: `pong ${text.slice(5)}` } }],
          },
          echo: String(++echo),
        }),
      );
    });
  });
  const { port } = wss.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
    stop: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}

const { side, checkout } = JSON.parse(process.argv[2] ?? "{}") as { side: ServedSide; checkout?: string };
(side === "tsumugi" ? serveTsumugi(checkout ?? THIS_CHECKOUT) : serveBare()).then(
  (served) => {
    process.stdout.write(`${JSON.stringify({ url: served.url })}\n`);
    process.stdin.resume();
    process.stdin.once("end", () => void served.stop().finally(() => process.exit(0)));
  },
  (error: unknown) => {
    process.stderr.write(
      `command server (${side}): ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
