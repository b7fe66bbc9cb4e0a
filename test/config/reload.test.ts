// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in config text.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigError, loadConfig } from "../../src/config/load.ts";
import { diffConfig, watchConfigFile } from "../../src/config/reload.ts";
import type { TsumugiConfig } from "../../src/config/schema.ts";
import { createLogger } from "../../src/log/logger.ts";
import { sleep } from "../support/wait.ts";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsumugi-reload-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function configFrom(yaml: string): TsumugiConfig {
  const file = join(dir, "diff.yaml");
  writeFileSync(file, yaml);
  return loadConfig({ file, env: {}, cwd: dir }).config;
}

describe("diffConfig", () => {
  it("finds nothing between equal configs", () => {
    expect(diffConfig(configFrom(""), configFrom(""))).toEqual({ changedKeys: [], restartRequired: [] });
  });

  it("names changed keys one level down and marks server, storage and adapters as needing a restart", () => {
    const previous = configFrom("");
    const next = configFrom(
      [
        "server: { port: 7000 }",
        "storage: { url: 'sqlite:./other.db' }",
        "bot: { persona: be terse }",
        "adapters: [{ id: qq, accessToken: t }]",
        "chat: { realtime: { windowMs: 500 }, textChunkLimit: 2000 }",
        "plugins: { disabled: [voice_plugin] }",
      ].join("\n"),
    );
    expect(diffConfig(previous, next)).toEqual({
      changedKeys: [
        "server.port",
        "storage.url",
        "bot.persona",
        "adapters",
        "chat.realtime",
        "chat.textChunkLimit",
        "plugins.disabled",
      ],
      restartRequired: ["server.port", "storage.url", "adapters"],
    });
  });

  it("treats llm changes as reloadable", () => {
    const previous = configFrom("");
    const next = configFrom(
      "llm: { providers: [{ id: main, type: openai }], models: { planner: [main/gpt-4o-mini] } }\n",
    );
    expect(diffConfig(previous, next)).toEqual({
      changedKeys: ["llm.providers", "llm.models"],
      restartRequired: [],
    });
  });
});

describe("watchConfigFile", () => {
  /** Collects what the watcher reports and lets a test wait for the next report. */
  function startWatching(file: string) {
    const changes: TsumugiConfig[] = [];
    const errors: Error[] = [];
    let notify = () => {};
    const logLines: string[] = [];
    const logger = createLogger({
      level: "info",
      destination: new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    });
    const stop = watchConfigFile(
      file,
      (next) => {
        changes.push(next);
        notify();
      },
      (error) => {
        errors.push(error);
        notify();
      },
      logger,
      { env: { PORT: "7100" }, debounceMs: 50 },
    );
    const nextReport = () =>
      new Promise<void>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error("no report from the watcher")), 5000);
        notify = () => {
          clearTimeout(timeout);
          notify = () => {};
          resolve();
        };
      });
    return { changes, errors, logLines, stop, nextReport };
  }

  it("passes an edited config on, and ignores an invalid edit while reporting its problems", async () => {
    const file = join(dir, "tsumugi.yaml");
    writeFileSync(file, "bot: { persona: first }\n");
    const watch = startWatching(file);
    try {
      let report = watch.nextReport();
      writeFileSync(file, "bot: { persona: second }\nserver: { port: '${PORT}' }\n");
      await report;
      expect(watch.changes.map((config) => [config.bot.persona, config.server.port])).toEqual([
        ["second", 7100],
      ]);

      report = watch.nextReport();
      writeFileSync(file, "bot: { persona: third }\nchat: { realtime: { windowMs: fast } }\n");
      await report;
      expect(watch.changes).toHaveLength(1);
      expect(watch.errors).toHaveLength(1);
      expect((watch.errors[0] as ConfigError).problems).toEqual(["chat.realtime.windowMs: must be a number"]);
      expect(watch.logLines.join("")).toContain("chat.realtime.windowMs: must be a number");
    } finally {
      watch.stop();
    }
  });

  it("follows editors that save by renaming a new file over the old one", async () => {
    const file = join(dir, "tsumugi.yaml");
    writeFileSync(file, "bot: { persona: first }\n");
    const watch = startWatching(file);
    try {
      const report = watch.nextReport();
      writeFileSync(join(dir, ".tsumugi.yaml.swp"), "bot: { persona: renamed }\n");
      renameSync(join(dir, ".tsumugi.yaml.swp"), file);
      await report;
      expect(watch.changes.map((config) => config.bot.persona)).toEqual(["renamed"]);
    } finally {
      watch.stop();
    }
  });

  it("reports nothing after it is stopped", async () => {
    const file = join(dir, "tsumugi.yaml");
    writeFileSync(file, "bot: { persona: first }\n");
    const watch = startWatching(file);
    watch.stop();
    writeFileSync(file, "bot: { persona: second }\n");
    await sleep(300);
    expect(watch.changes).toEqual([]);
    expect(watch.errors).toEqual([]);
  });
});
