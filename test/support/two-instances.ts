/**
 * Two bot instances over PostgreSQL and Redis, each a real process, sharing one account's
 * conversation through a OneBot stand-in, with a scripted model whose answers can be held back
 * (gates): what the cluster's fault scenes and cross-instance tests drive.
 *
 *   const scene = await TwoInstanceScene.start();
 *   const group = await scene.startChat(await sharedStorage()); // a owns the chat, first message answered
 *   await scene.reconnectTo("b");
 *   scene.trigger(group, "第二句");
 *   await scene.allAnswered();
 */
import { expect } from "vitest";
import { type BotProcess, startBotProcess } from "./bot-process.ts";
import { mention } from "./messages.ts";
import { OneBotStandIn } from "./onebot-standin.ts";
import { freshPostgresUrl } from "./postgres-server.ts";
import { CLUSTER_SECRET, clusterKeyPrefix, freshRedis } from "./redis-server.ts";
import { type RecordedLlmRequest, ScriptedLlmServer, type ScriptedResponse } from "./scripted-llm-server.ts";
import { type Gate, sleep, waitFor } from "./wait.ts";

export const ACCOUNT = "10001";
export const USER = "30001";
export const LEASE_MS = 1_500;
/** The bound: every trigger is answered within this long of being sent. */
export const ANSWER_WITHIN_MS = 15_000;
/** Starting a process on a loaded 2-core machine can be slow; the bound above is what is tested. */
const START_TIMEOUT_MS = 60_000;

export interface Trigger {
  group: string;
  text: string;
  /** Its platform message id. */
  messageId: string;
  sentAt: number;
}

/** Two instances sharing one account's conversation, and what the account received. */
export class TwoInstanceScene {
  readonly bots = new Map<string, BotProcess>();
  readonly qq = new OneBotStandIn({ selfId: ACCOUNT });
  readonly gates = new Map<string, Gate>();
  /** Group id → when each reply arrived. */
  readonly replies = new Map<string, number[]>();
  readonly triggers: Trigger[] = [];
  #nextGroup = 20_000;

  constructor(readonly llm: ScriptedLlmServer) {
    this.qq.onSent((sent) => {
      if (sent.groupId)
        this.replies.set(sent.groupId, [...(this.replies.get(sent.groupId) ?? []), Date.now()]);
    });
  }

  static async start(): Promise<TwoInstanceScene> {
    let scene: TwoInstanceScene | undefined;
    const llm = await ScriptedLlmServer.start({
      whenEmpty: async (request: RecordedLlmRequest): Promise<ScriptedResponse> => {
        if (!request.toolNames.includes("reply")) return { text: "好的" };
        for (const [word, gate] of scene?.gates ?? [])
          if (request.promptText.includes(word)) await gate.opened;
        return { toolCalls: [{ name: "reply", arguments: {} }] };
      },
    });
    scene = new TwoInstanceScene(llm);
    return scene;
  }

  async startInstances(storage: { databaseUrl: string; redisUrl: string; keyPrefix: string }): Promise<void> {
    const started = await Promise.all(
      ["a", "b"].map((id) =>
        startBotProcess({
          llm: this.llm,
          startTimeoutMs: START_TIMEOUT_MS,
          config: {
            storage: { url: storage.databaseUrl },
            cluster: {
              redisUrl: storage.redisUrl,
              secret: CLUSTER_SECRET,
              instanceId: id,
              leaseMs: LEASE_MS,
              keyPrefix: storage.keyPrefix,
            },
            agent: { recoverWithinMs: 120_000 },
          },
        }),
      ),
    );
    this.bots.set("a", started[0]!);
    this.bots.set("b", started[1]!);
    await this.qq.connectReverse(this.bot("a").wsUrl);
  }

  /** Starts the instances on `storage`; returns a new chat in which a first message was answered. */
  async startChat(storage: { databaseUrl: string; redisUrl: string; keyPrefix: string }): Promise<string> {
    await this.startInstances(storage);
    const group = this.newGroup();
    this.trigger(group, "第一句：早上好");
    await this.allAnswered();
    return group;
  }

  /**
   * Says one more thing in `group`: every trigger is answered once, this one with the chat's
   * first message in its history.
   */
  async expectConversationGoesOn(group: string): Promise<void> {
    this.trigger(group, "第三句：有人吗");
    await this.allAnswered();
    await this.expectEachAnsweredOnce();
    expect(this.sawWithHistory("第三句：有人吗", "第一句：早上好")).toBe(true);
  }

  bot(id: string): BotProcess {
    return this.bots.get(id)!;
  }

  newGroup(): string {
    return String(this.#nextGroup++);
  }

  /** @-mentions the account in `group` with `text`. */
  trigger(group: string, text: string): Trigger {
    const messageId = this.qq.pushGroupMessage({
      groupId: group,
      userId: USER,
      message: mention(text, ACCOUNT),
    });
    const trigger = { group, text, messageId, sentAt: Date.now() };
    this.triggers.push(trigger);
    return trigger;
  }

  /** Moves the account's connection to instance `id` (a load balancer, NapCat reconnecting). */
  async reconnectTo(id: string): Promise<void> {
    this.qq.disconnect();
    await this.qq.connectReverse(this.bot(id).wsUrl);
  }

  /** Waits until every trigger sent so far is answered, each within ANSWER_WITHIN_MS of being sent. */
  async allAnswered(): Promise<void> {
    const expected = this.#expected();
    const deadline = Math.max(...this.triggers.map((t) => t.sentAt)) + ANSWER_WITHIN_MS;
    await waitFor(
      () => [...expected].every(([group, count]) => (this.replies.get(group) ?? []).length >= count),
      Math.max(0, deadline - Date.now()),
      `every trigger answered within ${ANSWER_WITHIN_MS} ms`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; what the instances logged:\n${this.#notableLines()}`);
    });
    // Each reply in time: the n-th reply of a group within the bound of its n-th trigger.
    for (const [group, count] of expected) {
      const sent = this.triggers.filter((t) => t.group === group).map((t) => t.sentAt);
      const answered = this.replies.get(group)!.slice(0, count);
      for (const [index, at] of answered.entries()) expect(at - sent[index]!).toBeLessThan(ANSWER_WITHIN_MS);
    }
  }

  /** After a quiet while: every trigger answered exactly once, nothing more. */
  async expectEachAnsweredOnce(quietMs = 2 * LEASE_MS): Promise<void> {
    await sleep(quietMs);
    const counts = Object.fromEntries([...this.replies].map(([group, at]) => [group, at.length]));
    expect(counts).toEqual(Object.fromEntries(this.#expected()));
  }

  /** Whether the model saw `text` in a prompt that also carries `earlier` (the other instance stored it). */
  sawWithHistory(text: string, earlier: string): boolean {
    return this.llm.requests.some(
      (request) => request.promptText.includes(text) && request.promptText.includes(earlier),
    );
  }

  /** Sends the bot logged in `sessionGroup`, per instance. */
  sentBy(group: string): Record<string, number> {
    return Object.fromEntries(
      [...this.bots].map(([id, bot]) => [
        id,
        bot.logs.filter(
          (line) => line.msg === "message sent" && line.sessionId === `onebot:${ACCOUNT}:group:${group}`,
        ).length,
      ]),
    );
  }

  async dispose(): Promise<void> {
    for (const gate of this.gates.values()) gate.open();
    for (const bot of this.bots.values()) if (bot.child.signalCode === null) bot.child.kill("SIGCONT");
    await this.qq.close();
    await Promise.all([...this.bots.values()].map((bot) => bot.dispose()));
    await this.llm.close();
  }

  /** Each instance's warnings and turn outcomes, oldest first: what a failed wait shows. */
  #notableLines(): string {
    return [...this.bots]
      .flatMap(([id, bot]) =>
        bot.logs
          .filter((line) => Number(line.level) >= 40 || String(line.msg).startsWith("turn "))
          .map((line) => {
            const { time, level: _level, pid: _pid, hostname: _hostname, msg, ...rest } = line;
            return { time: Number(time), text: `${id} ${msg} ${JSON.stringify(rest).slice(0, 300)}` };
          }),
      )
      .sort((x, y) => x.time - y.time)
      .map((line) => line.text)
      .join("\n");
  }

  #expected(): Map<string, number> {
    const expected = new Map<string, number>();
    for (const { group } of this.triggers) expected.set(group, (expected.get(group) ?? 0) + 1);
    return expected;
  }
}

/** PostgreSQL and Redis of the run, a database and key prefix of the scene's own. */
export async function sharedStorage(): Promise<{ databaseUrl: string; redisUrl: string; keyPrefix: string }> {
  const redis = await freshRedis();
  return {
    databaseUrl: await freshPostgresUrl(),
    redisUrl: redis.url,
    keyPrefix: clusterKeyPrefix(redis),
  };
}
