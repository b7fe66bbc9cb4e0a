// The ordinary first-hour mistakes, each one line that says what to do (issue 42): a port in use,
// a data folder the bot's user may not write, an unset ${VAR}, doctor without server.token, a
// reverse-WS URL pasted with a trailing slash, a NapCat pointed at a wrong path.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { runRefusedBotProcess, startBotProcess } from "../support/bot-process.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const NOBODY = { uid: 65534, gid: 65534 };
/** A reference to a variable nobody sets, as an operator writes it in the YAML. */
const UNSET_REFERENCE = ["$", "{TSUMUGI_UNSET_TOKEN}"].join("");

describe("first-hour mistakes", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("a port in use is one line naming the port and server.port, no stack", { timeout: 60_000 }, async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => holder.close(resolve)));
    const { port } = holder.address() as { port: number };
    const refused = await runRefusedBotProcess({ config: { server: { port } } });
    expect(refused.code).toBe(1);
    expect(refused.stderrLines).toEqual([
      `tsumugi: port ${port} on 127.0.0.1 is in use by another program: stop it, or set server.port to a free port`,
    ]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "a data folder the user may not write is one line naming the folder and the user",
    { timeout: 60_000 },
    async () => {
      // Root may write anywhere: the bot runs as nobody in a folder root owns (readable, not writable).
      const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-readonly-"));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      chmodSync(dataDir, 0o755);
      const refused = await runRefusedBotProcess({ dataDir, user: NOBODY, env: { HOME: dataDir } });
      expect(refused.code).toBe(1);
      expect(refused.stderrLines).toEqual([
        `tsumugi: the data folder ${dataDir} is not writable by the user nobody: give nobody that folder (chown), or point storage.url at one it may write`,
      ]);
    },
  );

  describe("with a running bot", () => {
    let bot: BotHarness;
    afterEach(() => bot?.stop());

    it("accepts the reverse-WS path with a trailing slash and logs an unknown path once", async () => {
      bot = await startBot();
      const qq = new OneBotStandIn({ selfId: "10000" });
      cleanups.push(() => qq.close());
      await qq.connectReverse(`${bot.wsUrl}/`);
      const connected = async () =>
        (
          (await (await fetch(`${bot.baseUrl}/healthz`)).json()) as {
            adapters: Array<{ connected: boolean }>;
          }
        ).adapters[0]!.connected;
      await waitFor(connected, 5_000, "the adapter connected over the path with a slash");

      const wrong = `${bot.wsUrl.replace("/onebot/v11/ws", "/ws")}`;
      for (let attempt = 0; attempt < 3; attempt++) {
        await expect(new OneBotStandIn({ selfId: "10001" }).connectReverse(wrong)).rejects.toThrow();
      }
      const logged = bot.logs.filter((line) =>
        line.msg.startsWith("WebSocket connection to an unknown path"),
      );
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ path: "/ws", served: ["/onebot/v11/ws"] });
    });

    it(
      "doctor and start-up name an unset variable and its key; doctor says why the QQ number is hidden",
      { timeout: 60_000 },
      async () => {
        bot = await startBot();
        const qq = new OneBotStandIn({ selfId: "10000" });
        cleanups.push(() => qq.close());
        await qq.connectReverse(bot.wsUrl);
        const dir = mkdtempSync(join(tmpdir(), "tsumugi-doctor-"));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        const file = join(dir, "tsumugi.yaml");
        const port = Number(new URL(bot.baseUrl).port);
        writeFileSync(
          file,
          stringify({
            server: { port, token: UNSET_REFERENCE },
            storage: { url: `sqlite:${join(dir, "tsumugi.db")}` },
          }),
        );
        const { stdout } = await new Promise<{ stdout: string }>((resolve) =>
          execFile(
            process.execPath,
            ["--import", TSX_LOADER, join(ROOT, "scripts/doctor.ts"), "--config", file],
            { cwd: dir, env: { ...process.env, TSUMUGI_CONFIG: "" }, timeout: 50_000 },
            (_error, out) => resolve({ stdout: out }),
          ),
        );
        const lines = stdout.trim().split("\n");
        expect(lines).toContain(
          "! server.token: the environment variable TSUMUGI_UNSET_TOKEN is not set, so server.token is empty",
        );
        expect(lines).toContain(
          "✓ adapters[0] (qq): QQ (number hidden: without server.token the bot shows account numbers to nobody; set one to see it here) connected",
        );
        // The same warning at start-up, in the log of the bot as `npm start` runs it.
        const started = await startBotProcess({
          config: { server: { token: UNSET_REFERENCE } },
          startTimeoutMs: 60_000,
        });
        cleanups.push(() => started.dispose());
        expect(started.logs).toContainEqual(
          expect.objectContaining({
            level: 40,
            msg: "server.token: the environment variable TSUMUGI_UNSET_TOKEN is not set, so server.token is empty",
          }),
        );
      },
    );
  });
});
