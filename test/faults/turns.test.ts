/**
 * SIGKILL mid-turn, then a restart on the same data folder (issue 13, durable turns). One
 * crash covers three chats at once, each a case of its own:
 *   A — the model was still thinking: the trigger is answered exactly once after the restart;
 *   B — the same, but the trigger is older than agent.recoverWithinMs: no answer, the turn is
 *       marked interrupted with its reason, on the console's timeline;
 *   C — the reply had left (the stand-in received send_private_msg) but the turn had not
 *       finished: it is not sent again, and the doubt is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedRows } from "../support/bot-harness.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import {
  type RecordedLlmRequest,
  ScriptedLlmServer,
  type ScriptedResponse,
} from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const ALICE = "30001"; // A: answered after the restart
const BOB = "30002"; // B: too old to answer
const CAROL = "30003"; // C: her reply may already have gone out
const RECOVER_WITHIN_MS = 60_000;

interface TurnRow {
  reply_id: string;
  status: string;
  reason: string | null;
  trigger_message_ids: string;
  recovered_from: string | null;
}

interface TimelineTurn {
  replyId: string;
  status?: string;
  reason?: string;
}

describe("a bot killed mid-turn and restarted", () => {
  let llm: ScriptedLlmServer;
  let qq: OneBotStandIn;
  let first: BotProcess;
  let second: BotProcess;
  let requestsBeforeRestart = 0;
  const triggers: Record<string, string> = {};
  let turns: TurnRow[] = [];
  let timeline: TimelineTurn[] = [];

  // The first run's planner thinks for a minute (A, B) or answers at once (C); after the
  // crash every answer is immediate.
  let slow = true;
  const model = (request: RecordedLlmRequest): ScriptedResponse => {
    if (!request.toolNames.includes("reply")) return { text: "在的，刚才说到哪了" };
    const thinking = slow && !request.promptText.includes("卡罗尔");
    return { toolCalls: [{ name: "reply", arguments: {} }], ...(thinking ? { delayMs: 60_000 } : {}) };
  };

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start({ steps: Array.from({ length: 8 }, () => model) });
    qq = new OneBotStandIn({ selfId: SELF });
    const config = { agent: { recoverWithinMs: RECOVER_WITHIN_MS } };
    first = await startBotProcess({ llm, config });
    await qq.connectReverse(first.wsUrl);
    // Carol's reply reaches the stand-in, which holds its answer: the send has left.
    qq.delay("send_private_msg", (params) => (String(params.user_id) === CAROL ? 60_000 : 0));
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    triggers.alice = qq.pushPrivateMessage({ userId: ALICE, message: plain("艾丽丝：明天几点集合？") });
    triggers.bob = qq.pushPrivateMessage({ userId: BOB, message: plain("鲍勃：在吗"), time: tenMinutesAgo });
    triggers.carol = qq.pushPrivateMessage({ userId: CAROL, message: plain("卡罗尔：晚安") });
    await qq.waitForAction(
      (action) => action.action === "send_private_msg" && String(action.params.user_id) === CAROL,
      10_000,
    );
    // A and B are recorded running before their model calls, which now hang.
    const asked = (name: string) => llm.requests.some((request) => request.promptText.includes(name));
    await waitFor(() => asked("艾丽丝") && asked("鲍勃"), 10_000);
    await first.kill("SIGKILL");
    slow = false;
    qq.delay("send_private_msg", 0);
    requestsBeforeRestart = llm.requests.length;

    second = await startBotProcess({ llm, config, dataDir: first.dataDir });
    await qq.connectReverse(second.wsUrl);
    await qq.waitForSent((sent) => sent.userId === ALICE, 15_000);
    // The recovered turn is on the timeline once it has finished.
    await waitFor(
      async () => {
        const response = await fetch(`${second.baseUrl}/api/monitor/turns?limit=50`);
        timeline = ((await response.json()) as { turns: TimelineTurn[] }).turns;
        return timeline.some((turn) => turn.status === "replied");
      },
      5_000,
      "the recovered turn replied",
    );
    await second.kill("SIGTERM");
    turns = await storedRows<TurnRow>(first.dataDir, "SELECT * FROM turns ORDER BY created_at");
  }, 60_000);

  afterAll(async () => {
    await second?.dispose();
    await first?.dispose();
    await qq?.close();
    await llm?.close();
  });

  const turnsFor = (trigger: string | undefined) =>
    turns.filter((turn) => (JSON.parse(turn.trigger_message_ids) as string[]).includes(String(trigger)));

  it("answers a trigger whose turn the crash interrupted exactly once, and links the two turns", () => {
    expect(qq.sent.filter((sent) => sent.userId === ALICE).map((sent) => sent.text)).toEqual([
      "在的，刚才说到哪了",
    ]);
    const [interrupted, recovered] = turnsFor(triggers.alice);
    expect(recovered).toMatchObject({ status: "replied", recovered_from: interrupted!.reply_id });
    expect(interrupted).toMatchObject({
      status: "interrupted",
      reason: `interrupted by a restart; run again as turn ${recovered!.reply_id}`,
    });
  });

  it("does not answer a trigger older than agent.recoverWithinMs, and shows why on the timeline", () => {
    const afterRestart = llm.requests.slice(requestsBeforeRestart);
    expect(afterRestart.some((request) => request.promptText.includes("鲍勃"))).toBe(false);
    expect(qq.sent.filter((sent) => sent.userId === BOB)).toEqual([]);
    const [turn] = turnsFor(triggers.bob);
    expect(turn).toMatchObject({ status: "interrupted", reason: expect.stringContaining("trigger was") });
    expect(timeline.find((entry) => entry.replyId === turn!.reply_id)).toMatchObject({
      status: "interrupted",
      reason: expect.stringContaining(`agent.recoverWithinMs is ${RECOVER_WITHIN_MS}`),
    });
  });

  it("never sends again a reply that may already have gone out, and records the doubt", () => {
    const sends = qq.actions.filter(
      (action) => action.action === "send_private_msg" && String(action.params.user_id) === CAROL,
    );
    expect(sends).toHaveLength(1);
    const afterRestart = llm.requests.slice(requestsBeforeRestart);
    expect(afterRestart.some((request) => request.promptText.includes("卡罗尔"))).toBe(false);
    const [turn] = turnsFor(triggers.carol);
    expect(turn).toMatchObject({
      status: "interrupted",
      reason: expect.stringContaining("a send was in doubt"),
    });
    expect(timeline.find((entry) => entry.replyId === turn!.reply_id)).toMatchObject({
      status: "interrupted",
      reason: expect.stringContaining("a send was in doubt"),
    });
  });
});
