import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { buildServer, serverBuildIsStale } from "../../scripts/build-server.ts";
import { startBot } from "../support/bot-harness.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import {
  type RecordedLlmRequest,
  ScriptedLlmServer,
  type ScriptedResponse,
} from "../support/scripted-llm-server.ts";
import { sleep } from "../support/wait.ts";

/**
 * `npm run eval -- --replay` as an operator runs it, against a database a real bot wrote: the
 * bot (talkValue 0) answers an @ in a group while members chat, one recalls a message and one
 * pokes it; then the replay command, as its own process, plays that chat through candidate
 * bots (the process `npm start` runs) on the same scripted model server.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");
const SELF_ID = "1000000001";
const GROUP = "30001";
const SESSION = `onebot:${SELF_ID}:group:${GROUP}`;
const SECRET = "我的银行卡密码是 XYZ123";

/** Who the scripted model is answering for now: the live run, then the replays. */
let phase: "live" | "candidate" = "live";
let answers = 0;
const candidatePrompts: string[] = [];

function answer(request: RecordedLlmRequest): ScriptedResponse {
  if (phase === "candidate") candidatePrompts.push(JSON.stringify(request.body));
  if (request.toolNames.includes("reply")) return { toolCalls: [{ name: "reply", arguments: {} }] };
  if (request.promptText.includes("你要回复的是：")) {
    answers += 1;
    return { text: `${phase} 回答 ${answers}` };
  }
  if (request.promptText.includes('{"memories"')) return { text: '{"memories": []}' };
  return { text: "好的" };
}

interface ReplayJson {
  session: string;
  fed: number;
  recalled: number;
  live: { messages: Array<{ time: number; text: string; after?: string }> };
  candidates: Array<{
    config: string;
    messages: Array<{
      time: number;
      text: string;
      unasked: boolean;
      after?: string;
      why: { trigger: string; score?: number };
    }>;
    turns: number;
    tokens: number;
    modelCalls: number;
    unaskedJoins: number;
    cost: number | null;
    currency: string | null;
    governorHolds: { total: number };
  }>;
  points: Array<{
    after: { messageId: string; name: string; text: string } | null;
    live: string[];
    candidates: Array<{ messages: Array<{ text: string; unasked: boolean }>; decision?: { rule?: string } }>;
  }>;
}

describe("npm run eval -- --replay", () => {
  let llm: ScriptedLlmServer;
  let folder: string;
  let database: string;
  const liveMessageIds: string[] = [];

  beforeAll(async () => {
    if (serverBuildIsStale()) await buildServer();
    llm = await ScriptedLlmServer.start({ whenEmpty: answer });
    folder = mkdtempSync(join(tmpdir(), "tsumugi-replay-test-"));
    const bot = await startBot({ llm, dataDir: join(folder, "live") });
    const qq = new OneBotStandIn({ selfId: SELF_ID, nickname: "紬" });
    try {
      await qq.connectReverse(bot.wsUrl);
      const say = async (userId: string, nickname: string, text: string, at = false) => {
        const id = qq.pushGroupMessage({
          groupId: GROUP,
          userId,
          nickname,
          message: [...(at ? [{ type: "at", data: { qq: SELF_ID } }] : []), { type: "text", data: { text } }],
        });
        await bot.waitForEvent("message.ingested", (event) => String(event.data.messageId) === id);
        await sleep(150);
        return id;
      };
      liveMessageIds.push(await say("10001", "张三", "今天好热啊"));
      liveMessageIds.push(await say("10002", "李四", "是啊，空调都不管用"));
      const secret = await say("10003", "王五", SECRET);
      qq.pushEvent({
        post_type: "notice",
        notice_type: "group_recall",
        group_id: Number(GROUP),
        user_id: 10003,
        operator_id: 10003,
        message_id: Number(secret),
      });
      await sleep(300);
      liveMessageIds.push(await say("10001", "张三", "你们家的猫怕热吗？"));
      // A pause longer than a fast replay keeps: the replay waits for each candidate to be done.
      await sleep(3_500);
      liveMessageIds.push(await say("10002", "李四", "你觉得呢", true));
      await bot.turnFinished(1, 20_000);
      await qq.waitForSent((sent) => sent.text.includes("live 回答"), 10_000);
      await sleep(500);
    } finally {
      await qq.close();
      await bot.dispose();
    }
    database = join(folder, "live", "tsumugi.db");
  }, 180_000);

  afterAll(async () => {
    await llm?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  function writeConfig(name: string, overrides: Record<string, unknown>): string {
    const file = join(folder, name);
    writeFileSync(
      file,
      stringify({
        bot: { name: "紬" },
        llm: {
          providers: [{ id: "main", type: "openai-compatible", baseUrl: llm.baseUrl, apiKey: "test-key" }],
          models: { planner: ["main/scripted-model"], replyer: ["main/scripted-model"] },
        },
        chat: { expressions: { enabled: false } },
        ...overrides,
      }),
    );
    return file;
  }

  async function runReplay(args: string[]) {
    const child = spawn(TSX, ["scripts/eval.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, TSUMUGI_CONFIG: "" },
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    try {
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { code, stdout, stderr };
    } finally {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
  }

  function fingerprint(file: string) {
    const db = new Database(file, { readonly: true });
    const rows = db.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number };
    db.close();
    return {
      sha256: createHash("sha256").update(readFileSync(file)).digest("hex"),
      mtimeMs: statSync(file).mtimeMs,
      messages: rows.n,
      wal: existsSync(`${file}-wal`),
    };
  }

  it("shows the live bot's sends beside two candidates', with an unasked join only the talkative one made", async () => {
    const stored = new Database(database, { readonly: true });
    const live = stored
      .prepare("SELECT segments FROM messages WHERE session_id = ? AND from_self = 1")
      .all(SESSION) as Array<{ segments: string }>;
    const recalled = stored
      .prepare("SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND recalled_at IS NOT NULL")
      .get(SESSION) as { n: number };
    stored.close();
    expect(live.length).toBeGreaterThanOrEqual(1);
    expect(recalled.n).toBe(1);
    const before = fingerprint(database);

    const talkative = writeConfig("talkative.yaml", {
      bot: { name: "紬", interests: ["猫"] },
      chat: { participation: { talkValue: 0.5 }, expressions: { enabled: false } },
      llm: {
        providers: [{ id: "main", type: "openai-compatible", baseUrl: llm.baseUrl, apiKey: "test-key" }],
        models: { planner: ["main/scripted-model"], replyer: ["main/scripted-model"] },
        prices: { "main/scripted-model": { input: 2, output: 8, currency: "CNY" } },
      },
    });
    const quiet = writeConfig("quiet.yaml", {});
    const out = join(folder, "replay.json");
    phase = "candidate";
    const run = await runReplay([
      "--replay",
      SESSION,
      "--db",
      database,
      "--config",
      talkative,
      "--config",
      quiet,
      "--json",
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, "utf8")) as ReplayJson;

    expect(report.session).toBe(SESSION);
    expect(report.fed).toBe(4);
    expect(report.recalled).toBe(1);
    expect(report.live.messages.map((message) => message.text)).toEqual([
      expect.stringMatching(/^live 回答 \d+$/),
    ]);
    expect(report.live.messages[0]?.time).toBeGreaterThan(0);
    expect(report.candidates.map((candidate) => candidate.config)).toEqual([talkative, quiet]);
    const [chatty, still] = report.candidates;

    // The talkative candidate joined the cat question unasked; the live bot and the quiet one did not.
    const cat = liveMessageIds[2];
    const joined = chatty?.messages.filter((message) => message.unasked) ?? [];
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ after: cat, why: { trigger: "unasked" } });
    expect(joined[0]?.why.score).toBeGreaterThan(0);
    expect(chatty?.unaskedJoins).toBe(1);
    expect(still?.messages.filter((message) => message.unasked)).toEqual([]);
    expect(still?.unaskedJoins).toBe(0);
    // Both answered the @, as the live bot did.
    const mention = liveMessageIds[3];
    for (const candidate of report.candidates) {
      const answered = candidate.messages.filter((message) => message.after === mention);
      expect(answered.map((message) => message.why.trigger)).toContain("mention");
      expect(answered[0]?.text).toMatch(/^candidate 回答 \d+$/);
      expect(answered[0]?.time).toBeGreaterThanOrEqual(report.live.messages[0]!.time - 60_000);
      expect(candidate.turns).toBeGreaterThanOrEqual(1);
      expect(candidate.tokens).toBeGreaterThan(0);
    }
    expect(chatty?.cost).toBeGreaterThan(0);
    expect(chatty?.currency).toBe("CNY");
    expect(still?.cost).toBeNull();

    // Side by side: the point after the cat question shows the join beside the live bot's silence.
    const catPoint = report.points.find((point) => point.after?.messageId === cat);
    expect(catPoint).toMatchObject({ after: { name: "张三", text: "你们家的猫怕热吗？" }, live: [] });
    expect(catPoint?.candidates[0]?.messages).toEqual([
      { text: expect.stringMatching(/^candidate/), unasked: true, why: expect.any(Object) },
    ]);
    expect(catPoint?.candidates[1]?.messages).toEqual([]);
    const mentionPoint = report.points.find((point) => point.after?.messageId === mention);
    expect(mentionPoint?.live).toEqual([report.live.messages[0]?.text]);

    // The table: a column per candidate, the join tagged, the totals.
    expect(run.stdout).toMatch(
      new RegExp(`^time +after +live +${escaped(talkative)} +${escaped(quiet)}$`, "m"),
    );
    expect(run.stdout).toMatch(/张三: 你们家的猫怕热吗？ +- +\[unasked [\d.]+≥[\d.]+\] candidate 回答/);
    expect(run.stdout).toContain(`total ${talkative}: 2 messages (1 unasked)`);
    expect(run.stdout).toMatch(
      new RegExp(`total ${escaped(talkative)}: .* · [\\d.]+ CNY · \\d+ governor holds`),
    );

    // The recalled message never reached a candidate's model.
    expect(candidatePrompts.length).toBeGreaterThan(0);
    expect(candidatePrompts.filter((prompt) => prompt.includes("XYZ123"))).toEqual([]);
    expect(candidatePrompts.some((prompt) => prompt.includes("你们家的猫怕热吗"))).toBe(true);

    // The store is as it was; the report is kept next to the first candidate config.
    expect(fingerprint(database)).toEqual(before);
    const kept = readdirSync(join(folder, "replays"));
    expect(kept).toHaveLength(1);
    const keptJson = JSON.parse(readFileSync(join(folder, "replays", kept[0]!, "report.json"), "utf8"));
    expect(keptJson.candidates).toHaveLength(2);
    expect(readFileSync(join(folder, "replays", kept[0]!, "report.txt"), "utf8")).toContain("total ");
  }, 240_000);

  it("exits 2 with one line for a missing database, an unknown chat or a bad speed, keeping nothing", async () => {
    const quiet = writeConfig("quiet-2.yaml", {});
    const missing = await runReplay([
      "--replay",
      SESSION,
      "--db",
      join(folder, "nope.db"),
      "--config",
      quiet,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`eval: --db ${join(folder, "nope.db")}: no such file`);

    const unknown = await runReplay(["--replay", "onebot:1:group:999", "--db", database, "--config", quiet]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    expect(unknown.stderr).toContain("eval: onebot:1:group:999: no such chat in");

    const speed = await runReplay([
      "--replay",
      SESSION,
      "--db",
      database,
      "--config",
      quiet,
      "--speed",
      "slow",
    ]);
    expect(speed.code).toBe(2);
    expect(speed.stderr).toMatch(/^eval: --speed: "slow" is neither fast nor a number/);

    const noCandidate = await runReplay(["--replay", SESSION, "--db", database]);
    expect(noCandidate.code).toBe(2);
    expect(noCandidate.stderr).toMatch(/^eval: --replay needs a candidate: --config FILE/);

    const scenarioFlag = await runReplay(["--db", database, "--scripted"]);
    expect(scenarioFlag.code).toBe(2);
    expect(scenarioFlag.stderr).toMatch(/^eval: --db is for --replay/);
  }, 60_000);
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
