/**
 * Runs the whole bot (the real composition root) on an ephemeral port with its SQLite file in
 * a temp folder (or a PostgreSQL database, see storageUrlOf), a scripted model, and log lines
 * captured for assertions.
 *
 *   const llm = await ScriptedLlmServer.start();
 *   const bot = await startBot({ llm });
 *   const qq = new OneBotStandIn({ selfId: "10000" });
 *   await qq.connectReverse(bot.wsUrl);
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { type RunningApp, startApp } from "../../src/app.ts";
import type { TsumugiConfig } from "../../src/config/schema.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type MonitorEvent, type MonitorEventType, MonitorHub } from "../../src/monitor/monitor.ts";
import { committedRows, type Row } from "./database-rows.ts";
import { Capture, LogCapture, type LogLine } from "./log-capture.ts";
import { postgresDatabaseUrl } from "./postgres-server.ts";
import type { ScriptedLlmServer } from "./scripted-llm-server.ts";

export interface BotHarness {
  app: RunningApp;
  config: TsumugiConfig;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The reverse WebSocket url of the default adapter. */
  wsUrl: string;
  dataDir: string;
  /** The config file the bot runs from, when `configFile` was asked for. */
  configFile?: string;
  /** Every log line written so far, parsed. */
  logs: LogLine[];
  /** Waits for a log line matching `predicate`. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Every monitor event emitted since the bot started (start-up included), in order. */
  events: MonitorEvent[];
  /** Waits for a monitor event of `type` (already emitted or future) matching `predicate`. */
  waitForEvent(
    type: MonitorEventType,
    predicate?: (event: MonitorEvent) => boolean,
    timeoutMs?: number,
  ): Promise<MonitorEvent>;
  /**
   * Waits until `count` turns have finished (replied, silent, failed or refused) and returns
   * the `count`-th `turn.finished` event: `data.status`, `data.reason`, `replyId`.
   */
  turnFinished(count?: number, timeoutMs?: number): Promise<MonitorEvent>;
  /** Stops the bot; the data folder is kept so a restart sees the same database. */
  stop(): Promise<void>;
  /** Stops the bot and deletes its data folder. */
  dispose(): Promise<void>;
}

export interface StartBotOptions {
  llm?: ScriptedLlmServer;
  /** Merged over the harness defaults (deep for plain objects). */
  config?: Record<string, unknown>;
  /** Reuse a data folder (restart tests). */
  dataDir?: string;
  /**
   * Write the config as YAML to `<dataDir>/tsumugi.yaml` and run from that file, so it is
   * watched and the console can edit it.
   */
  configFile?: boolean;
  /**
   * Resolve only once every plugin's first activation attempt is over (default true), so a
   * test can talk to the bot with its plugin tools there; the bot itself does not wait.
   */
  waitForPlugins?: boolean;
}

/**
 * Where the bot of `dataDir` keeps its data: SQLite in `dataDir`, or with
 * TSUMUGI_TEST_STORAGE=postgres (the `postgres` vitest project) a database on the run's
 * PostgreSQL server named after `dataDir`, so a restart on the same folder finds the same data.
 */
export async function storageUrlOf(dataDir: string): Promise<string> {
  if (process.env.TSUMUGI_TEST_STORAGE !== "postgres") return `sqlite:${join(dataDir, "tsumugi.db")}`;
  return postgresDatabaseUrl(`bot_${createHash("sha256").update(dataDir).digest("hex").slice(0, 20)}`);
}

/**
 * The rows `sql` reads from the database of the bot (harness or process) run on `dataDir`,
 * as another process would: what it committed, whichever backend it runs on (database-rows.ts).
 */
export async function storedRows<R = Row>(dataDir: string, sql: string): Promise<R[]> {
  return committedRows<R>(await storageUrlOf(dataDir), sql);
}

/**
 * The config the harnesses run the bot with, before validation: an ephemeral port, storage of
 * its own (storageUrlOf), short batching windows, limits and the ping-pong guard off (tests ask far
 * faster than people do; test/security/limits.test.ts turns limits on), debug logs, and the scripted
 * model when given.
 */
export async function harnessConfig(
  dataDir: string,
  llm: ScriptedLlmServer | undefined,
  overrides: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const base: Record<string, unknown> = {
    server: { port: 0 },
    storage: { url: await storageUrlOf(dataDir) },
    // The ping-pong guard off: tests answer the bot far faster than people do (participation tests
    // turn it on). Expression learning off: its background model calls would take the scripted
    // answers a test queued for its turns (the Groups tests turn it on).
    chat: {
      realtime: { windowMs: 30, maxWindowMs: 300 },
      participation: { pingPongMs: 0 },
      expressions: { enabled: false },
    },
    limits: { userTurnsPerMinute: 0, groupTurnsPerMinute: 0 },
    log: { level: "debug" },
  };
  if (llm) {
    base.llm = {
      providers: [
        {
          id: "main",
          type: "openai-compatible",
          baseUrl: llm.baseUrl,
          apiKey: "test-key",
          maxRetries: 1,
        },
      ],
      models: { planner: ["main/scripted-model"], replyer: ["main/scripted-model"] },
    };
  }
  return deepMerge(base, overrides);
}

export async function startBot(options: StartBotOptions = {}): Promise<BotHarness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "tsumugi-bot-"));
  const merged = await harnessConfig(dataDir, options.llm, options.config);
  // Validation fills in defaults in place; the config file keeps only what the test set.
  const validation = validateConfig(structuredClone(merged));
  if (!validation.ok) throw new Error(`test config invalid: ${validation.problems.join("; ")}`);
  const config = validation.config;

  const logs = new LogCapture();
  const logger = logs.logger(config.log.level);
  let configFile: string | undefined;
  if (options.configFile) {
    configFile = join(dataDir, "tsumugi.yaml");
    writeFileSync(configFile, stringify(merged));
  }
  const events = new Capture<MonitorEvent>();
  const monitor = new MonitorHub((error) => logger.warn({ err: error }, "monitor listener failed"));
  monitor.subscribe((event) => events.push(event));
  const app = await startApp({ config, configFile, logger, monitor });
  if (options.waitForPlugins !== false) await app.pluginsActivated;
  const baseUrl = `http://127.0.0.1:${app.address.port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.stop();
  };
  return {
    app,
    config,
    baseUrl,
    wsUrl: `ws://127.0.0.1:${app.address.port}/onebot/v11/ws`,
    dataDir,
    configFile,
    logs: logs.lines,
    waitForLog: (predicate, timeoutMs) => logs.waitFor(predicate, timeoutMs),
    events: events.items,
    waitForEvent: (type, predicate = () => true, timeoutMs = 10_000) =>
      events.waitFor((event) => event.type === type && predicate(event), timeoutMs, `${type} event`),
    turnFinished(count = 1, timeoutMs = 10_000) {
      const finished = (event: MonitorEvent) => event.type === "turn.finished";
      return events.waitFor(
        (event) => finished(event) && events.items.filter(finished).indexOf(event) === count - 1,
        timeoutMs,
        `turn.finished #${count}`,
      );
    },
    stop,
    async dispose() {
      await stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
