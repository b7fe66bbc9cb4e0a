/**
 * Long-term memory recall: `search` on a real SQLite file holding 100,000 memories
 * (mixed Chinese and English short facts about ~2,000 people and ~50 groups, generated from a
 * fixed seed), for a turn-like query: a Chinese chat line, with the sender's and the group's
 * subjects. The same queries on 1,000 memories give the baseline. Target: p50 ≤ 5 ms at 100,000.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zonedClock } from "../src/context/clock-text.ts";
import type { LlmRequest, LlmResult } from "../src/llm/types.ts";
import { createLogger } from "../src/log/logger.ts";
import { type MemorySettings, memorySchema } from "../src/memory/config.ts";
import { MemoryLearner } from "../src/memory/memory-learner.ts";
import { MemoryService } from "../src/memory/memory-service.ts";
import {
  groupSubject,
  type MemorySearch,
  type MemoryStore,
  type NewMemory,
  personSubject,
} from "../src/memory/types.ts";
import type { ChatMessage } from "../src/message/inbound.ts";
import { loadPromptTemplates } from "../src/prompts/templates.ts";
import { openStore } from "../src/store/open-store.ts";
import { openSqliteDatabase } from "../src/store/sqlite/database.ts";
import { SqliteMemoryStore } from "../src/store/sqlite/memory-store.ts";
import { percentile, round } from "./child.ts";
import { estimateTokens } from "./prompt-cache.ts";

const PEOPLE = 2_000;
const GROUPS = 50;
const QUERIES = 300;
const WARMUP = 30;
const LIMIT = 8;
const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1);

const SURNAMES = [..."王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐"];
const GIVEN = [..."伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红"];
const CITIES = [
  "成都",
  "北京",
  "上海",
  "深圳",
  "杭州",
  "重庆",
  "西安",
  "南京",
  "武汉",
  "广州",
  "Tokyo",
  "Berlin",
];
const TIMES = ["下周二", "明天", "这个周末", "下个月", "今年夏天", "国庆", "月底", "后天晚上"];
const TRIPS = ["出差", "旅游", "搬家", "面试", "考试", "看演唱会", "参加婚礼", "见网友"];
const FOODS = ["火锅", "香菜", "螺蛳粉", "奶茶", "寿司", "榴莲", "烧烤", "coffee"];
const GAMES = ["原神", "王者荣耀", "Minecraft", "Elden Ring", "CS2", "星露谷", "Apex", "雀魂"];
const JOBS = ["程序员", "设计师", "老师", "学生", "医生", "nurse", "engineer", "产品经理"];
const PETS = ["猫", "狗", "仓鼠", "鹦鹉", "乌龟"];
const WEEKDAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"];
const CHAT_LINES = [
  (r: Random) => `我${r.pick(TIMES)}去${r.pick(CITIES)}${r.pick(TRIPS)}，有人一起吗`,
  (r: Random) => `今晚有人${r.pick(GAMES)}开黑吗`,
  (r: Random) => `你们谁知道${r.pick(CITIES)}哪家${r.pick(FOODS)}好吃`,
  (r: Random) => `我家${r.pick(PETS)}又把东西打翻了`,
  (r: Random) => `anyone up for ${r.pick(GAMES)} tonight? 我${r.pick(TIMES)}有空`,
  (r: Random) => `${r.pick(WEEKDAYS)}的活动还办吗，我想带朋友来`,
];

/** A small seeded generator (mulberry32): the same memories and queries on every run. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(bound: number): number {
    return Math.floor(this.next() * bound);
  }
  pick<T>(values: readonly T[]): T {
    return values[this.int(values.length)] as T;
  }
}

function personName(index: number): string {
  const surname = SURNAMES[index % SURNAMES.length];
  const given = GIVEN[Math.floor(index / SURNAMES.length) % GIVEN.length];
  const second = index >= SURNAMES.length * GIVEN.length ? GIVEN[index % 7] : "";
  return `${surname}${given}${second}`;
}

function personFact(r: Random): string {
  switch (r.int(7)) {
    case 0:
      return `${r.pick(TIMES)}要去${r.pick(CITIES)}${r.pick(TRIPS)}`;
    case 1:
      return `喜欢${r.pick(FOODS)}，不喜欢${r.pick(FOODS)}`;
    case 2:
      return `每天晚上玩${r.pick(GAMES)}`;
    case 3:
      return `是${r.pick(CITIES)}的${r.pick(JOBS)}`;
    case 4:
      return `养了一只${r.pick(PETS)}，叫${r.pick(GIVEN)}${r.pick(GIVEN)}`;
    case 5:
      return `works as a ${r.pick(JOBS)} in ${r.pick(CITIES)} and plays ${r.pick(GAMES)}`;
    default:
      return `讨厌被@叫醒，${r.pick(WEEKDAYS)}早上不要找他`;
  }
}

function groupFact(r: Random): string {
  switch (r.int(3)) {
    case 0:
      return `群里把一起打${r.pick(GAMES)}叫做开黑`;
    case 1:
      return `每${r.pick(WEEKDAYS)}晚上在${r.pick(CITIES)}聚会`;
    default:
      return `群友${r.pick(TIMES)}一起去吃${r.pick(FOODS)}`;
  }
}

export function memoryAt(r: Random, index: number): NewMemory {
  const aboutGroup = r.int(10) === 0;
  const group = r.int(GROUPS);
  const person = r.int(PEOPLE);
  const sessionId = `onebot:group:${30_000 + group}`;
  const at = NOW - r.int(365) * DAY;
  return {
    subject: aboutGroup
      ? groupSubject("onebot", String(30_000 + group))
      : personSubject("onebot", String(10_000 + person)),
    subjectName: aboutGroup ? `测试群${group}` : personName(person),
    content: aboutGroup ? groupFact(r) : personFact(r),
    origin: "learned",
    sessionId,
    sources: [{ sessionId, messageId: `m${index}`, userId: String(10_000 + person), time: at }],
    at,
  };
}

/** Searches as a turn would: the line a member just sent, about them and their group. */
function turnQueries(count: number): MemorySearch[] {
  const r = new Random(7);
  return Array.from({ length: count }, () => ({
    query: r.pick(CHAT_LINES)(r),
    subjects: [
      personSubject("onebot", String(10_000 + r.int(PEOPLE))),
      groupSubject("onebot", String(30_000 + r.int(GROUPS))),
    ],
    limit: LIMIT,
    now: NOW,
  }));
}

async function timeSearches(
  store: SqliteMemoryStore,
  searches: MemorySearch[],
): Promise<Record<string, number>> {
  for (const search of searches.slice(0, WARMUP)) await store.search(search);
  const times: number[] = [];
  let hits = 0;
  for (const search of searches) {
    const start = performance.now();
    hits += (await store.search(search)).length;
    times.push(performance.now() - start);
  }
  return {
    queries: searches.length,
    p50Ms: round(percentile(times, 50), 3),
    p95Ms: round(percentile(times, 95), 3),
    maxMs: round(Math.max(...times), 3),
    averageHits: round(hits / searches.length, 2),
  };
}

async function benchAt(count: number): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "tsumugi-bench-memory-"));
  const db = openSqliteDatabase(join(dir, "memory.db"), createLogger({ level: "silent" }));
  try {
    const store = new SqliteMemoryStore(db);
    const r = new Random(1);
    const fillStart = performance.now();
    db.exec("BEGIN");
    for (let i = 0; i < count; i++) await store.add(memoryAt(r, i));
    db.exec("COMMIT");
    const fillMs = performance.now() - fillStart;
    const turn = turnQueries(QUERIES);
    // The planner's `recall`: the same lines over every memory but other groups'.
    const recall = turn.map(({ query }) => ({
      query,
      excludeSubjectPrefix: ["group:"],
      limit: LIMIT,
      now: NOW,
    }));
    return {
      memories: count,
      fillMs: round(fillMs, 0),
      turn: await timeSearches(store, turn),
      recallForTurn: await timeRecallForTurn(memoryService(store)),
      recallAnySubject: await timeSearches(store, recall),
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const LOGGER = createLogger({ level: "silent" });
const SETTINGS = { ...memoryDefaults(), recallLimit: LIMIT };

/** `memory.*` as the config's defaults fill them in. */
function memoryDefaults() {
  const defaults = Object.fromEntries(
    Object.entries(memorySchema.properties).map(([key, schema]) => [
      key,
      (schema as { default: unknown }).default,
    ]),
  );
  return defaults as MemorySettings;
}

function templates() {
  const load = loadPromptTemplates({ language: "zh", templates: {} }, tmpdir());
  if (!load.ok) throw new Error(load.problems.join("; "));
  return load.templates;
}

export function memoryService(store: MemoryStore): MemoryService {
  const prompts = templates();
  return new MemoryService({
    store,
    settings: () => SETTINGS,
    prompts: () => prompts,
    clock: () => zonedClock("Asia/Shanghai"),
    monitor: { emit() {} },
    logger: LOGGER,
  });
}

export function chatMessage(r: Random, group: number, person: number, index: number): ChatMessage {
  const groupId = String(30_000 + group);
  return {
    platform: "onebot",
    adapterId: "qq",
    selfId: "10000",
    sessionId: `onebot:10000:group:${groupId}`,
    chatType: "group",
    groupId,
    userId: String(10_000 + person),
    senderName: personName(person),
    messageId: `q${index}`,
    segments: [{ type: "text", data: { text: r.pick(CHAT_LINES)(r) } }],
    time: NOW,
    fromSelf: false,
  };
}

/**
 * What a turn's prompt recall costs (the memory service: the sender's and the group's matching
 * facts, the sender's others, the matching facts of the 20 people in the history window).
 */
async function timeRecallForTurn(service: MemoryService): Promise<Record<string, number>> {
  const r = new Random(11);
  const turns = Array.from({ length: QUERIES }, (_, index) => {
    const group = r.int(GROUPS);
    return {
      replyId: `r${index}`,
      messages: [chatMessage(r, group, r.int(PEOPLE), index)],
      participants: Array.from({ length: 20 }, (_, k) =>
        chatMessage(r, group, r.int(PEOPLE), index * 100 + k),
      ),
    };
  });
  for (const turn of turns.slice(0, WARMUP)) await service.recallForTurn(turn);
  const times: number[] = [];
  let chars = 0;
  for (const turn of turns) {
    const start = performance.now();
    chars += (await service.recallForTurn(turn)).length;
    times.push(performance.now() - start);
  }
  return {
    turns: turns.length,
    p50Ms: round(percentile(times, 50), 3),
    p95Ms: round(percentile(times, 95), 3),
    averageSectionChars: Math.round(chars / turns.length),
  };
}

/**
 * Background learning's cost: 100 chat messages of one group from 8 members, learned with the
 * default settings (a pass every 30 messages), the memory model answering two additions per
 * pass. Tokens estimated like the prompt-cache bench (1 per CJK character, 1 per 4 others).
 */
async function extractionTokens(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "tsumugi-bench-learn-"));
  const stores = await openStore(`sqlite:${join(dir, "tsumugi.db")}`, LOGGER);
  try {
    const service = memoryService(stores.memories);
    const prompts = templates();
    let promptTokens = 0;
    let completionTokens = 0;
    let passes = 0;
    const llm = {
      async generate(request: LlmRequest): Promise<LlmResult> {
        passes++;
        const texts = request.messages.map((message) =>
          "content" in message ? String(message.content) : "",
        );
        promptTokens += texts.reduce((sum, text) => sum + 4 + estimateTokens(text), 0);
        const speaker = /\((\d+)\)/.exec(texts[1] ?? "")?.[1] ?? "10000";
        const source = /msg_id=([^\]]+)/.exec(texts[1] ?? "")?.[1] ?? "";
        const text = JSON.stringify({
          memories: [
            {
              op: "add",
              about: speaker,
              content: `第${passes}次学到：周末要去成都出差`,
              source_ids: [source],
            },
            {
              op: "add",
              about: "group",
              content: `群里把一起打游戏叫做开黑（第${passes}次）`,
              source_ids: [source],
            },
          ],
        });
        completionTokens += estimateTokens(text);
        return {
          text,
          toolCalls: [],
          usage: { promptTokens: 0, completionTokens: 0 },
          provider: "bench",
          model: "stub",
          latencyMs: 0,
          finishReason: "stop",
        };
      },
    };
    const learner = new MemoryLearner({
      memory: service,
      store: stores.memories,
      history: stores.history,
      llm: () => llm,
      hasModel: () => true,
      recalled: () => false,
      settings: () => SETTINGS,
      access: () => ({ privateChats: true, allow: [], deny: [] }),
      prompts: () => prompts,
      clock: () => zonedClock("Asia/Shanghai"),
      botName: () => "紬",
      monitor: { emit() {} },
      logger: LOGGER,
    });
    const r = new Random(5);
    for (let index = 0; index < 100; index++) {
      const message = chatMessage(r, 0, r.int(8), index);
      stores.messages.append(message);
      learner.noticed(message);
      await learner.idle();
    }
    return {
      messages: 100,
      passes,
      promptTokensPer100Messages: promptTokens,
      completionTokensPer100Messages: completionTokens,
      memoriesStored: await stores.memories.count(),
    };
  } finally {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMemory(): Promise<Record<string, unknown>> {
  const baseline = await benchAt(1_000);
  const full = await benchAt(100_000);
  return { baseline, full, targetP50Ms: 5, extraction: await extractionTokens() };
}
