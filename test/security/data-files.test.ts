/** The database holds every chat the bot has seen: other local users must not read it. */
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBot } from "../support/bot-harness.ts";

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the database files", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("are created owner-only, in a private folder, with their WAL and shared-memory files", async () => {
    root = mkdtempSync(join(tmpdir(), "tsumugi-files-"));
    const file = join(root, "data", "tsumugi.db");
    const bot = await startBot({ dataDir: root, config: { storage: { url: `sqlite:${file}` } } });
    try {
      expect(existsSync(`${file}-wal`) && existsSync(`${file}-shm`)).toBe(true);
      expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
      expect(modeOf(join(root, "data"))).toBe(0o700);
    } finally {
      await bot.stop();
    }
  });

  it("narrows a database file an older version left readable to everyone", async () => {
    root = mkdtempSync(join(tmpdir(), "tsumugi-files-"));
    const file = join(root, "tsumugi.db");
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    const bot = await startBot({ dataDir: root });
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
    } finally {
      await bot.stop();
    }
  });
});
