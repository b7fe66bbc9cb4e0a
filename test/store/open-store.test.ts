import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir } from "../support/store.ts";

describe("openStore", () => {
  let dir: TempDir;

  beforeEach(() => {
    dir = makeTempDir();
  });

  afterEach(() => dir.remove());

  it("resolves a relative sqlite: path against the working directory and keeps history across reopen", async () => {
    const file = join(dir.path, "data", "tsumugi.db");
    const url = `sqlite:${relative(process.cwd(), file)}`;

    const stores = await openStore(url, captureLog().logger);
    stores.messages.append(groupMessage({ messageId: "7318462934586791234" }));
    stores.usage.record({
      time: Date.UTC(2025, 0, 1),
      task: "planner",
      provider: "main",
      model: "deepseek-chat",
      promptTokens: 10,
      completionTokens: 2,
      latencyMs: 100,
      success: true,
    });
    await stores.close(); // before the scheduled flush: close must write the queues itself
    await stores.close();
    expect(existsSync(file)).toBe(true);

    const log = captureLog();
    const reopened = await openStore(url, log.logger);
    const [message] = await reopened.messages.recent({ sessionId: "onebot:10000:group:20000", limit: 10 });
    expect(message?.messageId).toBe("7318462934586791234");
    expect(await reopened.usage.summarize({ sinceMs: 0 })).toHaveLength(1);
    expect(log.lines.some((line) => line.msg === "applied database migration")).toBe(false);
    await reopened.close();
  });

  it("opens an in-memory database with sqlite::memory:", async () => {
    const stores = await openStore("sqlite::memory:", captureLog().logger);
    stores.messages.append(groupMessage());
    expect(await stores.messages.recent({ sessionId: "onebot:10000:group:20000", limit: 1 })).toHaveLength(1);
    await stores.close();
  });

  it("rejects unsupported or missing schemes with the config key in the message", async () => {
    const { logger } = captureLog();
    await expect(openStore("mysql://localhost/tsumugi", logger)).rejects.toThrow(
      'storage.url: unsupported scheme "mysql:" (supported: sqlite:, postgres:, postgresql:)',
    );
    await expect(openStore("./data/tsumugi.db", logger)).rejects.toThrow(
      'storage.url: no scheme in "./data/tsumugi.db" (supported: sqlite:, postgres:, postgresql:)',
    );
    await expect(openStore("sqlite:", logger)).rejects.toThrow(
      'storage.url: "sqlite:" names no database file',
    );
  });
});
