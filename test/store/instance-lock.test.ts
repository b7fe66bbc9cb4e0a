// One bot per SQLite file: a second bot process on the file of a running one refuses to start
// (exit 2, one line naming the file and the running one), and the lock goes with its process.
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { lockDatabase } from "../../src/store/sqlite/instance-lock.ts";
import { type BotProcess, runRefusedBotProcess, startBotProcess } from "../support/bot-process.ts";
import { makeTempDir } from "../support/store.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const LOCK_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/instance-lock.ts")).href;

/** What another process finds when it tries to take the lock of `file`. */
async function lockedElsewhere(file: string): Promise<string> {
  const script = `import { lockDatabase } from ${JSON.stringify(LOCK_MODULE)};
try { lockDatabase(${JSON.stringify(file)}).release(); console.log("free"); } catch (error) { console.log(error.message); }`;
  const { stdout } = await run(process.execPath, [
    "--import",
    TSX_LOADER,
    "--input-type=module",
    "--eval",
    script,
  ]);
  return stdout.trim();
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(process.env.TSUMUGI_TEST_STORAGE === "postgres")("one bot per database file", () => {
  const bots: BotProcess[] = [];
  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.dispose();
  });

  it(
    "refuses a second bot process on the file, naming it and the running one's pid and port; the lock dies with the process",
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const first = await startBotProcess({ config: { server: { port } }, startTimeoutMs: 60_000 });
      bots.push(first);
      const file = join(first.dataDir, "tsumugi.db");

      // The second has a port of its own: only the database stands in its way.
      const second = await runRefusedBotProcess({
        dataDir: first.dataDir,
        config: { server: { port: 0 } },
        startTimeoutMs: 60_000,
      });
      expect(second.code).toBe(2);
      expect(second.stderrLines).toEqual([
        `tsumugi: ${file} is in use by another bot (pid ${first.child.pid}, port ${port}): stop that one, or give this one a storage.url of its own`,
      ]);
      // The first runs on, undisturbed.
      expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);

      // A crash leaves no stale lock behind: the next bot starts at once on the same file.
      await first.kill("SIGKILL");
      const third = await startBotProcess({
        dataDir: first.dataDir,
        config: { server: { port: 0 } },
        startTimeoutMs: 60_000,
      });
      bots.push(third);
      expect((await fetch(`${third.baseUrl}/healthz`)).status).toBe(200);
    },
  );

  it("is shared within one process and released with its last user", async () => {
    const dir = makeTempDir();
    try {
      const file = join(dir.path, "data", "tsumugi.db");
      const first = lockDatabase(file, { port: 6180 });
      const again = lockDatabase(file);
      first.release();
      first.release();
      // Still held for `again`: another process is refused.
      expect(await lockedElsewhere(file)).toContain(`(pid ${process.pid}, port 6180)`);
      again.release();
      expect(await lockedElsewhere(file)).toBe("free");
    } finally {
      dir.remove();
    }
  });
});
