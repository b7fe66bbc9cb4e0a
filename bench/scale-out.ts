/**
 * Scale-out: PostgreSQL storage and several instances over Redis, against baselines
 * measured in the same run (the machine is noisy). One throwaway PostgreSQL server and one Redis
 * server serve every part; each run gets a database and a Redis key prefix of its own.
 *
 * 1. Per-turn overhead: the turns bench's sequential turns (zero-latency model, bot in this
 *    process) on SQLite alone and on PostgreSQL + Redis (a cluster of one), with the per-minute
 *    limits off as in the turns bench and with them counted; the three alternated per round.
 * 2. Throughput: 30 accounts spread over three bot processes (10 each) against all 30 on one
 *    process (a cluster of one), both on PostgreSQL + Redis, groups mentioned concurrently.
 * 3. Take-over: three processes under a steady stream of mentions on all 30 accounts, one
 *    SIGKILLed; its accounts reconnect to the survivors at once (as through a load balancer).
 *    Every trigger goes to a group of its own, so replies per group show lost and duplicated ones.
 * 4. Freeze (fenced leases): the same, but the instance is frozen (SIGSTOP, its sockets open) for
 *    FREEZE_MS, longer than two leases, then woken (SIGCONT) while the stream goes on; the load
 *    balancer moves its accounts at once. Lost and duplicated triggers, and the time to the first
 *    answer on its accounts after the freeze.
 *
 * The bot processes run the compiled build as `npm start` does (rebuilt when stale); the model
 * (the tests' scripted server) and the OneBot stand-ins run in this process.
 *
 * `npm run bench scale-out` runs every scene; run directly, the scenes named on the command line:
 * `node --expose-gc --import tsx bench/scale-out.ts takeover freeze` (overhead, throughput,
 * takeover, freeze). With SCALE_OUT_LOGS=<folder>, the take-over scenes write each instance's
 * log there (`<scene>-<instance>.jsonl`), to follow a lost trigger through the instances.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { type BotProcess, startBotProcess } from "../test/support/bot-process.ts";
import type { StandInSocket } from "../test/support/onebot-standin.ts";
import { createPostgresDatabase, startPostgresServer } from "../test/support/postgres-server.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";
import { sleep } from "../test/support/wait.ts";
import { median, round } from "./child.ts";
import { MentionLoad } from "./mention-load.ts";
import { cpuMs } from "./process-tree.ts";
import { runTurns, sequentialFigures } from "./turns.ts";

/** Short, so a dead instance's sessions are taken over quickly (the default is 5 s). */
const LEASE_MS = 2_000;
const OVERHEAD_ROUNDS = 5;
const ACCOUNTS = 30;
const INSTANCES = ["a", "b", "c"] as const;
const THROUGHPUT_ROUNDS = 2;
const THROUGHPUT_TURNS = 3_000;
/** Groups mentioned at once per account (each waits for its answer before the next mention). */
const GROUPS_PER_ACCOUNT = 3;
const ANSWER_TIMEOUT_MS = 30_000;
/** Each account mentions the bot in a new group this often during the take-over run. */
const STREAM_INTERVAL_MS = 500;
const STREAM_BEFORE_KILL_MS = 4_000;
const STREAM_AFTER_KILL_MS = 12_000;
/** After the stream: how long to wait for the last answers, then for late duplicates. */
const SETTLE_MS = 20_000;
const TAKEOVER_GOAL_MS = 10_000;
/** How long the freeze run keeps the instance stopped (the scene), then the stream goes on after it wakes. */
const FREEZE_MS = 25_000;
const STREAM_AFTER_WAKE_MS = 6_000;
/**
 * Each instance serves two reverse-ws endpoints: one takes at most 16 connections
 * (MAX_CONNECTIONS_PER_ENDPOINT), and one instance holds all 30 accounts in the baseline.
 */
const ENDPOINTS = ["/onebot/v11/ws", "/onebot/v11/ws-2"] as const;
const USAGE = { promptTokens: 500, completionTokens: 10 };

/** Where one run keeps its data: a new PostgreSQL database and a Redis key prefix nobody used. */
interface Backend {
  storageUrl: string;
  redisUrl: string;
  keyPrefix: string;
  /** Deadlocks PostgreSQL has detected in the database so far (each stalls its transactions for deadlock_timeout, 1 s). */
  deadlocks(): Promise<number>;
}

/** The config keys that put an instance on `backend` as `instanceId`. */
function clusterConfig(backend: Backend, instanceId: string): Record<string, unknown> {
  return {
    storage: { url: backend.storageUrl },
    cluster: {
      redisUrl: backend.redisUrl,
      // Any secret: the bench's instances only need to share it.
      secret: "bench-cluster-secret-0123456789",
      instanceId,
      leaseMs: LEASE_MS,
      keyPrefix: backend.keyPrefix,
    },
  };
}

function zeroLatencyModel(): Promise<ScriptedLlmServer> {
  return ScriptedLlmServer.start({
    whenEmpty: (request) =>
      request.toolNames.length > 0
        ? { toolCalls: [{ name: "reply", arguments: {} }], usage: USAGE }
        : { text: "收到，马上来。", usage: USAGE },
  });
}

/** Bot processes on `backend`, one per id, as users run them: info logs, no plugins, no batching window. */
function startInstances(
  backend: Backend,
  ids: readonly string[],
  llm: ScriptedLlmServer,
): Promise<BotProcess[]> {
  return Promise.all(
    ids.map((id) =>
      startBotProcess({
        llm,
        compiled: true,
        // Start-up is not what is measured; on a loaded machine it can take longer than the 20 s default.
        startTimeoutMs: 60_000,
        config: {
          ...clusterConfig(backend, id),
          adapters: ENDPOINTS.map((path, index) => ({
            type: "onebot",
            id: `qq${index + 1}`,
            mode: "reverse-ws",
            path,
          })),
          chat: { realtime: { windowMs: 0 } },
          plugins: { dirs: [] },
          log: { level: "info" },
        },
      }),
    ),
  );
}

async function stopInstances(bots: BotProcess[]): Promise<void> {
  await Promise.all(bots.map((bot) => bot.kill("SIGTERM").then(() => bot.dispose())));
}

/** The reverse-ws url of instance `bot`'s endpoint for `account` (the endpoints take turns). */
function endpointUrl(bot: BotProcess, account: number, instances: number): string {
  const path = ENDPOINTS[Math.floor(account / instances) % ENDPOINTS.length]!;
  return `${bot.baseUrl.replace(/^http/, "ws")}${path}`;
}

/** Account `account` dials instance `account % bots.length`: 10 per instance for three. */
async function connectAccounts(load: MentionLoad, bots: BotProcess[]): Promise<void> {
  await Promise.all(
    load.accounts.map((standIn, account) =>
      standIn.connectReverse(endpointUrl(bots[account % bots.length]!, account, bots.length)),
    ),
  );
}

/** Medians over rounds of each sequential figure. */
function medianFigures(runs: Record<string, number>[]): Record<string, number> {
  const keys = Object.keys(runs[0]!);
  return Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key]!))]));
}

/**
 * The turns bench runs with the per-minute limits off (one user asks again and again). Counted
 * limits cost a cluster one Redis round trip before each turn, so they are measured as well:
 * set so high that nothing is refused.
 */
const COUNTED_LIMITS = { limits: { userTurnsPerMinute: 1_000_000, groupTurnsPerMinute: 1_000_000 } };

async function perTurnOverhead(fresh: () => Promise<Backend>): Promise<Record<string, unknown>> {
  const runs: Record<"sqlite" | "postgresRedis" | "postgresRedisCountingLimits", Record<string, number>[]> = {
    sqlite: [],
    postgresRedis: [],
    postgresRedisCountingLimits: [],
  };
  const configOf: Record<keyof typeof runs, () => Promise<Record<string, unknown> | undefined>> = {
    sqlite: async () => undefined,
    postgresRedis: async () => clusterConfig(await fresh(), "solo"),
    postgresRedisCountingLimits: async () => ({ ...clusterConfig(await fresh(), "solo"), ...COUNTED_LIMITS }),
  };
  const sides = Object.keys(runs) as (keyof typeof runs)[];
  for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
    // The order turns round by round: whichever runs first in a round (a cold page cache, the
    // garbage of the run before) is not always the same backend.
    for (const side of [...sides.slice(round % 3), ...sides.slice(0, round % 3)]) {
      const config = await configOf[side]();
      runs[side].push(sequentialFigures(await runTurns({ concurrent: 0, ...(config && { config }) })));
    }
  }
  // Each round's runs are next to each other in time, so the machine's drift between rounds
  // cancels out in their ratio: the median of those is the figure held to the target.
  const ratio = (of: Record<string, number>[]) =>
    Object.fromEntries(
      ["turnMsP50", "turnMsP99", "botCpuMsPerTurn"].map((key) => [
        key,
        round(median(of.map((run, index) => run[key]! / runs.sqlite[index]![key]!))),
      ]),
    );
  return {
    rounds: OVERHEAD_ROUNDS,
    sqlite: medianFigures(runs.sqlite),
    postgresRedis: medianFigures(runs.postgresRedis),
    postgresRedisCountingLimits: medianFigures(runs.postgresRedisCountingLimits),
    ratio: ratio(runs.postgresRedis),
    ratioCountingLimits: ratio(runs.postgresRedisCountingLimits),
    target: 2,
  };
}

/** Resolves true when `answered` does within `ms`, false otherwise. */
function within(answered: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([answered.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** THROUGHPUT_TURNS turns over 90 groups of 30 accounts, spread over `instances` processes. */
async function throughputRun(
  fresh: () => Promise<Backend>,
  instances: readonly string[],
): Promise<{ turnsPerSecond: number; botCpuMsPerTurn: number; unanswered: number; deadlocks: number }> {
  const llm = await zeroLatencyModel();
  const backend = await fresh();
  const bots = await startInstances(backend, instances, llm);
  const load = new MentionLoad(ACCOUNTS);
  try {
    await connectAccounts(load, bots);
    const groups = Array.from({ length: ACCOUNTS * GROUPS_PER_ACCOUNT }, (_, index) => ({
      account: index % ACCOUNTS,
      group: load.newGroup(),
    }));
    // Warm-up: one turn per group (sessions claimed, connections and caches warm).
    await Promise.all(
      groups.map(({ account, group }) => within(load.mention(account, group).answered, ANSWER_TIMEOUT_MS)),
    );
    const cpuBefore = bots.reduce((sum, bot) => sum + cpuMs(bot.child.pid!), 0);
    const started = performance.now();
    let issued = 0;
    let unanswered = 0;
    await Promise.all(
      groups.map(async ({ account, group }) => {
        while (issued < THROUGHPUT_TURNS) {
          issued++;
          if (!(await within(load.mention(account, group).answered, ANSWER_TIMEOUT_MS))) unanswered++;
        }
      }),
    );
    const elapsedMs = performance.now() - started;
    const botCpuMs = bots.reduce((sum, bot) => sum + cpuMs(bot.child.pid!), 0) - cpuBefore;
    return {
      turnsPerSecond: Math.round((issued / elapsedMs) * 1000),
      botCpuMsPerTurn: round(botCpuMs / issued, 2),
      unanswered,
      deadlocks: await backend.deadlocks(),
    };
  } finally {
    await load.close();
    await stopInstances(bots);
    await llm.close();
  }
}

async function throughput(fresh: () => Promise<Backend>): Promise<Record<string, unknown>> {
  const one = [];
  const three = [];
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    one.push(await throughputRun(fresh, ["solo"]));
    three.push(await throughputRun(fresh, INSTANCES));
  }
  const turnsPerSecond = median(three.map((run) => run.turnsPerSecond));
  const oneInstance = median(one.map((run) => run.turnsPerSecond));
  return {
    accounts: ACCOUNTS,
    instances: INSTANCES.length,
    concurrentGroups: ACCOUNTS * GROUPS_PER_ACCOUNT,
    turnsPerRun: THROUGHPUT_TURNS,
    rounds: THROUGHPUT_ROUNDS,
    turnsPerSecond,
    oneInstance,
    ratio: round(turnsPerSecond / oneInstance),
    cpus: cpus().length,
    botCpuMsPerTurn: median(three.map((run) => run.botCpuMsPerTurn)),
    oneInstanceBotCpuMsPerTurn: median(one.map((run) => run.botCpuMsPerTurn)),
    unanswered: [...one, ...three].reduce((sum, run) => sum + run.unanswered, 0),
    deadlocks: {
      threeInstances: three.map((run) => run.deadlocks),
      oneInstance: one.map((run) => run.deadlocks),
    },
  };
}

interface Trigger {
  account: number;
  /** The connection the mention was written to. */
  socket: StandInSocket | undefined;
  group: string;
  messageId: string;
  pushedAt: number;
  answeredAt?: number;
}

/** Log lines at warn level or above, counted by message and detail (reason or error), per instance. */
function warnings(bots: BotProcess[], ids: readonly string[]): Record<string, Record<string, number>> {
  return Object.fromEntries(
    bots.map((bot, index) => {
      const counts: Record<string, number> = {};
      for (const line of bot.logs) {
        if (Number(line.level) < 40) continue;
        const detail = [
          line.reason,
          line.error,
          (line.err as { message?: unknown } | undefined)?.message,
        ].find((value) => typeof value === "string");
        // Ids and numbers differ from line to line; the kind of trouble does not.
        const key =
          detail === undefined
            ? String(line.msg)
            : `${line.msg}: ${detail.replace(/[0-9a-f-]{8,}|\d+/g, "…")}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return [ids[index]!, counts];
    }),
  );
}

/** Whether `bot` logged the trigger's arrival (message ids are per account, so the group is matched too). */
function received(bot: BotProcess, trigger: Trigger): boolean {
  return bot.logs.some(
    (line) =>
      line.msg === "message received" &&
      line.messageId === trigger.messageId &&
      String(line.sessionId).endsWith(`:${trigger.group}`),
  );
}

/** The triggers whose message some instance stored (took in). */
async function storedTriggers(storageUrl: string, triggers: Trigger[]): Promise<Set<Trigger>> {
  const client = new pg.Client({ connectionString: storageUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ session_id: string; message_id: string }>(
      "SELECT session_id, message_id FROM messages WHERE session_id = ANY($1::text[])",
      [triggers.map(sessionOf)],
    );
    const keys = new Set(rows.map((row) => `${row.session_id}\n${row.message_id}`));
    return new Set(triggers.filter((trigger) => keys.has(`${sessionOf(trigger)}\n${trigger.messageId}`)));
  } finally {
    await client.end();
  }
}

/** The session id the bot gives a trigger's group (as the account answering it). */
function sessionOf(trigger: Trigger): string {
  return `onebot:${trigger.account + 10_001}:group:${trigger.group}`;
}

/** The turns stored for each trigger's group: "status on instance: reason". */
async function storedTurns(storageUrl: string, triggers: Trigger[]): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: storageUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ session_id: string; line: string }>(
      `SELECT session_id, status || ' on ' || coalesce(instance_id, '?') || ': ' || coalesce(reason, '') AS line
       FROM turns WHERE session_id = ANY($1::text[]) ORDER BY created_at`,
      [triggers.map(sessionOf)],
    );
    const byGroup = new Map<string, string[]>();
    for (const row of rows) {
      const group = row.session_id.slice(row.session_id.lastIndexOf(":") + 1);
      byGroup.set(group, [...(byGroup.get(group) ?? []), row.line]);
    }
    return byGroup;
  } finally {
    await client.end();
  }
}

/** The accounts of the instance the take-over run kills (the first): connectAccounts gives it every third. */
const onVictim = (account: number) => account % INSTANCES.length === 0;

/**
 * How the take-over run stops its victim: killed, or frozen for FREEZE_MS and woken up (its
 * sockets stay open, so the load balancer moves its accounts as soon as its health check fails).
 */
type Stop = "SIGKILL" | "SIGSTOP";

async function takeover(fresh: () => Promise<Backend>, stop: Stop): Promise<Record<string, unknown>> {
  const llm = await zeroLatencyModel();
  const backend = await fresh();
  const bots = await startInstances(backend, INSTANCES, llm);
  const load = new MentionLoad(ACCOUNTS);
  try {
    await connectAccounts(load, bots);
    const victimAccounts = load.accounts.map((_, account) => account).filter(onVictim);
    const victimSockets = new Set(victimAccounts.map((account) => load.accounts[account]!.sockets()[0]));
    const toVictim = (trigger: Trigger) => victimSockets.has(trigger.socket);
    const triggers: Trigger[] = [];
    let streaming = true;
    const stream = Promise.all(
      load.accounts.map(async (_, account) => {
        await sleep((account * STREAM_INTERVAL_MS) / ACCOUNTS);
        while (streaming) {
          // An implementation between connections has nowhere to send the message.
          if (load.connected(account)) {
            const group = load.newGroup();
            const { messageId, answered } = load.mention(account, group);
            const socket = load.accounts[account]!.sockets()[0];
            const trigger: Trigger = { account, socket, group, messageId, pushedAt: performance.now() };
            triggers.push(trigger);
            void answered.then(() => {
              trigger.answeredAt = performance.now();
            });
          }
          await sleep(STREAM_INTERVAL_MS);
        }
      }),
    );
    await sleep(STREAM_BEFORE_KILL_MS);

    const [victim, ...survivors] = bots as [BotProcess, ...BotProcess[]];
    // Frozen first, then its connections are dropped: as a health check notices a hung host.
    if (stop === "SIGSTOP") victim.child.kill("SIGSTOP");
    // The load balancer: a dropped connection is dialled again and lands on a survivor.
    const reconnected = victimAccounts.map(async (account, index) => {
      const standIn = load.accounts[account]!;
      if (stop === "SIGSTOP") standIn.disconnect();
      else await standIn.sockets()[0]!.closed;
      await standIn.connectReverse(
        endpointUrl(survivors[index % survivors.length]!, account, INSTANCES.length),
      );
      return performance.now();
    });
    const killedAt = performance.now();
    const heldByVictim = (trigger: Trigger) => toVictim(trigger) && trigger.pushedAt < killedAt;
    const heldAtKill = triggers.filter(
      (trigger) => heldByVictim(trigger) && trigger.answeredAt === undefined,
    );
    if (stop === "SIGKILL") await victim.kill("SIGKILL");
    const reconnectedAt = await Promise.all(reconnected);
    if (stop === "SIGKILL") await sleep(STREAM_AFTER_KILL_MS);
    else {
      await sleep(FREEZE_MS - (performance.now() - killedAt));
      victim.child.kill("SIGCONT");
      await sleep(STREAM_AFTER_WAKE_MS);
    }
    streaming = false;
    await stream;

    const settleBy = performance.now() + SETTLE_MS;
    while (triggers.some((trigger) => trigger.answeredAt === undefined) && performance.now() < settleBy) {
      await sleep(100);
    }
    await sleep(2 * LEASE_MS); // a late second answer would show by now

    const answeredAgainMs = victimAccounts.map((account) => {
      const after = triggers.filter((trigger) => trigger.account === account && trigger.pushedAt > killedAt);
      const first = Math.min(...after.map((trigger) => trigger.answeredAt ?? Number.POSITIVE_INFINITY));
      return first - killedAt;
    });
    const unanswered = triggers.filter((trigger) => load.replies(trigger.group) === 0);
    const duplicated = triggers.filter((trigger) => load.replies(trigger.group) > 1);
    const stored = await storedTriggers(backend.storageUrl, unanswered);
    // Accepted: some instance read it from its socket and took it in (its message row is
    // stored, or it logged the message). A mention written into the stopped instance's
    // connection that no instance ever took in was never delivered to a live one: OneBot has no
    // acknowledgement, so it is lost between the two processes, as with a real NapCat.
    const accepted = (trigger: Trigger) => stored.has(trigger) || bots.some((bot) => received(bot, trigger));
    const neverDelivered = unanswered.filter((trigger) => toVictim(trigger) && !accepted(trigger));
    const lost = unanswered.filter((trigger) => !neverDelivered.includes(trigger));
    const lostTurns = await storedTurns(backend.storageUrl, lost.slice(0, 10));
    const heldAnswered = heldAtKill.filter((trigger) => trigger.answeredAt !== undefined);
    return {
      stop,
      ...(stop === "SIGSTOP" && { frozenMs: FREEZE_MS }),
      leaseMs: LEASE_MS,
      accounts: ACCOUNTS,
      instances: INSTANCES.length,
      killedAccounts: victimAccounts.length,
      mentionsPerSecond: round((ACCOUNTS * 1000) / STREAM_INTERVAL_MS, 0),
      triggers: triggers.length,
      takeoverMs: Math.round(Math.max(...answeredAgainMs)),
      goalMs: TAKEOVER_GOAL_MS,
      reconnectMs: Math.round(Math.max(...reconnectedAt) - killedAt),
      // Triggers the killed instance held unanswered (in a turn or not yet started) when it died.
      heldAtKill: heldAtKill.length,
      heldAnswered: heldAnswered.length,
      heldAnsweredWithinMs: Math.round(Math.max(0, ...heldAnswered.map((t) => t.answeredAt! - killedAt))),
      // Accepted by an instance and never answered.
      lost: lost.length,
      duplicated: duplicated.length,
      goal: { lost: 0, duplicated: 0 },
      lostOnKilledInstance: lost.filter(heldByVictim).length,
      neverDelivered: neverDelivered.length,
      neverDeliveredTriggers: neverDelivered.map((trigger) => ({
        account: trigger.account,
        pushedMsAfterStop: Math.round(trigger.pushedAt - killedAt),
      })),
      lostTriggers: lost.slice(0, 10).map((trigger) => ({
        account: trigger.account,
        onKilledInstance: heldByVictim(trigger),
        pushedMsBeforeKill: Math.round(killedAt - trigger.pushedAt),
        storedInDatabase: stored.has(trigger),
        loggedAsReceivedBy: INSTANCES.filter((_, index) => received(bots[index]!, trigger)),
        turns: lostTurns.get(trigger.group) ?? [],
      })),
      duplicatedTriggers: duplicated.slice(0, 10).map((trigger) => ({
        account: trigger.account,
        replies: load.replies(trigger.group),
        pushedMsBeforeKill: Math.round(killedAt - trigger.pushedAt),
      })),
      deadlocks: await backend.deadlocks(),
      warnings: warnings(bots, INSTANCES),
    };
  } finally {
    await load.close();
    await stopInstances(bots);
    await llm.close();
    keepLogs(stop === "SIGKILL" ? "takeover" : "freeze", bots);
  }
}

/** Writes each instance's log into SCALE_OUT_LOGS, when set. */
function keepLogs(scene: string, bots: BotProcess[]): void {
  const folder = process.env.SCALE_OUT_LOGS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  for (const [index, bot] of bots.entries()) {
    const lines = bot.logs.map((line) => JSON.stringify(line)).join("\n");
    writeFileSync(join(folder, `${scene}-${INSTANCES[index]}.jsonl`), `${lines}\n`);
  }
}

/** Runs one statement as the server's superuser. */
async function adminQuery<R extends pg.QueryResultRow>(
  adminUrl: string,
  sql: string,
  values: unknown[] = [],
) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function deadlocksIn(adminUrl: string, database: string): Promise<number> {
  const rows = await adminQuery<{ deadlocks: string }>(
    adminUrl,
    "SELECT deadlocks FROM pg_stat_database WHERE datname = $1",
    [database],
  );
  return Number(rows[0]?.deadlocks ?? 0);
}

const SCENES = ["overhead", "throughput", "takeover", "freeze"] as const;
type Scene = (typeof SCENES)[number];

export async function benchScaleOut(scenes: readonly Scene[] = SCENES): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const postgres = await startPostgresServer();
  const redis = await startRedisServer();
  let runs = 0;
  const fresh = async (): Promise<Backend> => {
    runs++;
    const database = `bench_${runs}`;
    const storageUrl = await createPostgresDatabase(postgres.adminUrl, database);
    return {
      storageUrl,
      redisUrl: redis.url,
      keyPrefix: `bench-${runs}`,
      deadlocks: () => deadlocksIn(postgres.adminUrl, database),
    };
  };
  const scene = {
    overhead: () => perTurnOverhead(fresh),
    throughput: () => throughput(fresh),
    takeover: () => takeover(fresh, "SIGKILL"),
    freeze: () => takeover(fresh, "SIGSTOP"),
  } satisfies Record<Scene, () => Promise<Record<string, unknown>>>;
  const results: Record<string, unknown> = {
    leaseMs: LEASE_MS,
    cpus: cpus().length,
    botCommand: "node dist/server/main.mjs",
  };
  try {
    for (const name of scenes) results[name] = await scene[name]();
    return results;
  } finally {
    await redis.stop();
    await postgres.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const named = process.argv.slice(2);
  const unknown = named.filter((name) => !(SCENES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown scenes ${unknown.join(", ")}; scenes: ${SCENES.join(", ")}`);
  const results = await benchScaleOut(named.length > 0 ? (named as Scene[]) : SCENES);
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  process.exit(0);
}
