// One bot per SQLite file: a second bot process on the file of a running one refuses to start
// (exit 2, one line naming the file and the running one), and the lock goes with its process.
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDatabase } from "../../src/store/sqlite/instance-lock.ts";
import { type BotProcess, runRefusedBotProcess, startBotProcess } from "../support/bot-process.ts";
import { makeTempDir } from "../support/store.ts";

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

  it("refuses a second bot process on the file, naming it and the running one's pid and port; the lock dies with the process", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const first = await startBotProcess({ config: { server: { port } } });
    bots.push(first);
    const file = join(first.dataDir, "tsumugi.db");

    // The second has a port of its own: only the database stands in its way.
    const second = await runRefusedBotProcess({ dataDir: first.dataDir, config: { server: { port: 0 } } });
    expect(second.code).toBe(2);
    expect(second.stderrLines).toEqual([
      `tsumugi: ${file} is in use by another bot (pid ${first.child.pid}, port ${port}): stop that one, or give this one a storage.url of its own`,
    ]);
    // The first runs on, undisturbed.
    expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);

    // A crash leaves no stale lock behind: the next bot starts at once on the same file.
    await first.kill("SIGKILL");
    const third = await startBotProcess({ dataDir: first.dataDir, config: { server: { port: 0 } } });
    bots.push(third);
    expect((await fetch(`${third.baseUrl}/healthz`)).status).toBe(200);
  });

  it("is released on close, and taken once within one process too", () => {
    const dir = makeTempDir();
    try {
      const file = join(dir.path, "data", "tsumugi.db");
      const lock = lockDatabase(file, { port: 6180 });
      expect(() => lockDatabase(file)).toThrow(`(pid ${process.pid}, port 6180)`);
      lock.release();
      lockDatabase(file).release();
    } finally {
      dir.remove();
    }
  });
});
