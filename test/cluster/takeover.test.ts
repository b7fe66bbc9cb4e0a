/**
 * Three instances over one PostgreSQL database and one Redis, each a real process
 * holding one QQ account's reverse-ws connection, as a load balancer would spread them.
 *
 * 1. One instance is SIGKILLed in the middle of a conversation: one of its turns waits on the
 *    model, another trigger waits in its batching window. The account reconnects to a
 *    survivor; within seconds the survivors take over and every trigger is answered exactly
 *    once — the interrupted turn run again, the pending trigger answered, new ones as usual.
 * 2. An account's connection moves to another instance while the session's owner is still
 *    thinking: the new message is handed to the owner, and the owner's reply goes out through
 *    the connection the other instance now holds.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { mention } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { clusterConfig, freshRedis, type RedisTarget } from "../support/redis-server.ts";
import {
  type RecordedLlmRequest,
  ScriptedLlmServer,
  type ScriptedResponse,
} from "../support/scripted-llm-server.ts";
import { Gate, sleep, waitFor } from "../support/wait.ts";

const ACCOUNTS = ["10001", "10002", "10003"] as const;
const INSTANCES = ["a", "b", "c"] as const;
const LEASE_MS = 1_500;
const USER = "30001";

describe("three instances sharing thirty sessions", () => {
  let llm: ScriptedLlmServer;
  let databaseUrl: string;
  const bots = new Map<string, BotProcess>();
  const qq = new Map<string, OneBotStandIn>();
  const gates = new Map<string, Gate>();
  /** Group id → how many replies the bot sent there. */
  const replies = new Map<string, number>();
  let nextGroup = 20_000;

  const model = async (request: RecordedLlmRequest): Promise<ScriptedResponse> => {
    if (!request.toolNames.includes("reply")) return { text: "好的" };
    for (const [word, gate] of gates) if (request.promptText.includes(word)) await gate.opened;
    return { toolCalls: [{ name: "reply", arguments: {} }] };
  };

  const startInstance = (id: string, realtimeWindowMs = 30) =>
    startBotProcess({
      llm,
      config: {
        storage: { url: databaseUrl },
        cluster: { ...clusterConfig(redis, id), leaseMs: LEASE_MS },
        chat: { realtime: { windowMs: realtimeWindowMs, maxWindowMs: realtimeWindowMs * 10 } },
        agent: { recoverWithinMs: 120_000 },
      },
      // Three processes transforming the sources at once (a cold tsx cache) on two cores.
      startTimeoutMs: 60_000,
    });
  let redis: RedisTarget;

  /** Pushes a trigger (@ the account) into a new group of `account`; resolves with the group id. */
  const trigger = (account: string, text: string): { group: string; messageId: string } => {
    const group = String(nextGroup++);
    replies.set(group, 0);
    const messageId = qq
      .get(account)!
      .pushGroupMessage({ groupId: group, userId: USER, message: mention(text, account) });
    return { group, messageId };
  };
  const answered = (group: string) => (replies.get(group) ?? 0) >= 1;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start({ whenEmpty: model });
    databaseUrl = await freshPostgresUrl();
    redis = await freshRedis();
    // Instance a batches slowly, so a trigger can be caught in its window.
    const started = await Promise.all(INSTANCES.map((id) => startInstance(id, id === "a" ? 4_000 : 30)));
    for (const [index, bot] of started.entries()) bots.set(INSTANCES[index]!, bot);
    for (const [index, account] of ACCOUNTS.entries()) {
      const standIn = new OneBotStandIn({ selfId: account });
      standIn.onSent((sent) => {
        if (sent.groupId) replies.set(sent.groupId, (replies.get(sent.groupId) ?? 0) + 1);
      });
      qq.set(account, standIn);
      await standIn.connectReverse(bots.get(INSTANCES[index]!)!.wsUrl);
    }
  }, 120_000);

  afterAll(async () => {
    for (const gate of gates.values()) gate.open();
    for (const standIn of qq.values()) await standIn.close();
    await Promise.all([...bots.values()].map((bot) => bot.dispose()));
    await llm?.close();
  });

  it("answers every trigger exactly once when an instance is killed mid-conversation", async () => {
    // Everyone answers while all three run.
    const first = ACCOUNTS.map((account) => trigger(account, "大家好"));
    await waitFor(() => first.every(({ group }) => answered(group)), 20_000);

    // On instance a: one turn waits on the model, one trigger waits in the batching window.
    gates.set("慢慢想", new Gate());
    const thinking = trigger("10001", "慢慢想：周末去哪");
    await waitFor(() => llm.requests.some((request) => request.promptText.includes("慢慢想")), 10_000);
    const windowed = trigger("10001", "窗口里：在吗");
    const a = bots.get("a")!;
    await waitFor(
      () => a.logs.some((line) => line.msg === "message received" && line.messageId === windowed.messageId),
      5_000,
    );
    await sleep(300); // the pending trigger reaches Redis (a's window is 4 s)
    await a.kill("SIGKILL");
    const killedAt = Date.now();
    gates.get("慢慢想")!.open();
    gates.delete("慢慢想");

    // The implementation reconnects through the load balancer and lands on b.
    await qq.get("10001")!.connectReverse(bots.get("b")!.wsUrl);
    await waitFor(() => answered(thinking.group) && answered(windowed.group), 20_000);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(10_000);
    // One survivor took over: a's running turn and the trigger in its window.
    const survivors = [bots.get("b")!, bots.get("c")!];
    const takeovers = survivors.flatMap((bot) =>
      bot.logs.filter((line) => line.msg === "took over the work of an instance that stopped"),
    );
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0]).toMatchObject({ instance: "a", turns: 1, pendingTriggers: 1 });

    // The conversation goes on on every account, account 10001 now through b.
    const after = ACCOUNTS.map((account) => trigger(account, "还在吗"));
    await waitFor(() => after.every(({ group }) => answered(group)), 20_000);
    await sleep(LEASE_MS); // anything answered twice would show by now
    for (const [group, count] of replies) expect({ group, count }).toEqual({ group, count: 1 });

    // The interrupted turn was run again by a survivor, linked to the one a left running.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{
        status: string;
        recovered_from: string | null;
        instance_id: string | null;
      }>("SELECT status, recovered_from, instance_id FROM turns WHERE session_id = $1 ORDER BY created_at", [
        `onebot:10001:group:${thinking.group}`,
      ]);
      expect(rows.map((row) => row.status)).toEqual(["interrupted", "replied"]);
      expect(rows[0]!.instance_id).toBe("a");
      expect(rows[1]!.recovered_from).not.toBeNull();
      expect(["b", "c"]).toContain(rows[1]!.instance_id);
    } finally {
      await db.end();
    }
  }, 90_000);

  it("hands a message to the session's owner and replies through the instance holding the connection", async () => {
    const b = bots.get("b")!;
    const c = bots.get("c")!;
    gates.set("慢慢想二", new Gate());
    const owned = trigger("10002", "慢慢想二：今晚吃什么");
    await waitFor(() => llm.requests.some((request) => request.promptText.includes("慢慢想二")), 10_000);

    // Account 10002 moves from b to c while b still thinks about its turn.
    const standIn = qq.get("10002")!;
    standIn.disconnect();
    const toC = await standIn.connectReverse(c.wsUrl);
    const followUp = standIn.pushGroupMessage({
      groupId: owned.group,
      userId: USER,
      message: mention("补充一句：要辣的", "10002"),
    });
    // b owns the session: the message reached b through its inbox, not c's chat stage.
    await waitFor(
      () => b.logs.some((line) => line.msg === "message received" && line.messageId === followUp),
      10_000,
    );
    expect(c.logs.some((line) => line.msg === "message received" && line.messageId === followUp)).toBe(false);

    gates.get("慢慢想二")!.open();
    gates.delete("慢慢想二");
    // The first trigger's turn, then the follow-up's (it waited for the session): two replies,
    // both sent by b through the connection c holds.
    await waitFor(() => (replies.get(owned.group) ?? 0) >= 2, 20_000);
    await sleep(LEASE_MS);
    expect(replies.get(owned.group)).toBe(2);
    const sends = standIn.actions.filter(
      (action) => action.action === "send_group_msg" && String(action.params.group_id) === owned.group,
    );
    expect(sends.map((action) => action.via)).toEqual([toC, toC]);
    expect(
      b.logs.filter(
        (line) => line.msg === "message sent" && line.sessionId === `onebot:10002:group:${owned.group}`,
      ),
    ).toHaveLength(2);
  }, 60_000);
});
