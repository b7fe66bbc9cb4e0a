/**
 * SIGKILL mid-turn, then a restart on the same data folder (durable turns). One
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
  attempt?: number | null;
}

/** The stored turns that `trigger` started. */
function turnsTriggeredBy(turns: TurnRow[], trigger: string | undefined): TurnRow[] {
  return turns.filter((turn) => (JSON.parse(turn.trigger_message_ids) as string[]).includes(String(trigger)));
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

  const turnsFor = (trigger: string | undefined) => turnsTriggeredBy(turns, trigger);

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

/**
 * A message whose turn kills the process (a poison message: a picture that exhausts memory, OOM-killed
 * under a memory limit): the first restart runs it again, as a crash of anything else may have
 * been the cause; when that second run is killed too, the next start marks it interrupted with
 * the reason and does not run it a third time, so the bot does not crash-loop and answers the
 * next message.
 */
describe("a turn killed twice", () => {
  const DAVE = "30004"; // his message "kills" every run of its turn
  const ERIN = "30005"; // writes after the second crash
  let llm: ScriptedLlmServer;
  let qq: OneBotStandIn;
  const bots: BotProcess[] = [];
  const poisonAsks: number[] = [];
  const triggers: Record<string, string> = {};
  let turns: TurnRow[] = [];
  let settledLog: Record<string, unknown> | undefined;

  // Dave's turn never gets an answer before the process is killed; everyone else's is immediate.
  const model = (request: RecordedLlmRequest): ScriptedResponse => {
    if (!request.toolNames.includes("reply")) return { text: "你好呀" };
    const poisoned = request.promptText.includes("戴夫");
    return { toolCalls: [{ name: "reply", arguments: {} }], ...(poisoned ? { delayMs: 60_000 } : {}) };
  };
  const asksAboutDave = () => llm.requests.filter((request) => request.promptText.includes("戴夫")).length;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start({ whenEmpty: model });
    qq = new OneBotStandIn({ selfId: SELF });
    const start = async () => {
      const dataDir = bots[0]?.dataDir;
      const bot = await startBotProcess({ llm, ...(dataDir === undefined ? {} : { dataDir }) });
      bots.push(bot);
      await qq.connectReverse(bot.wsUrl);
      return bot;
    };

    const first = await start();
    triggers.dave = qq.pushPrivateMessage({ userId: DAVE, message: plain("戴夫：看看这张图") });
    await waitFor(() => asksAboutDave() === 1, 10_000, "the first run asked the model");
    await first.kill("SIGKILL");

    const second = await start();
    await waitFor(() => asksAboutDave() === 2, 15_000, "the restart ran the turn again");
    await second.kill("SIGKILL");

    const third = await start();
    poisonAsks.push(asksAboutDave());
    triggers.erin = qq.pushPrivateMessage({ userId: ERIN, message: plain("艾琳：在吗") });
    await qq.waitForSent((sent) => sent.userId === ERIN, 15_000);
    poisonAsks.push(asksAboutDave());
    settledLog = third.logs.find(
      (line) => line.msg === "interrupted turn settled" && String(line.reason).includes("crash too"),
    );
    await third.kill("SIGTERM");
    turns = await storedRows<TurnRow>(first.dataDir, "SELECT * FROM turns ORDER BY created_at");
  }, 90_000);

  afterAll(async () => {
    for (const bot of bots.reverse()) await bot.dispose();
    await qq?.close();
    await llm?.close();
  });

  it("runs it again once, then marks it interrupted with the reason and answers new messages", () => {
    // The model never saw Dave's message a third time.
    expect(poisonAsks).toEqual([2, 2]);
    expect(qq.sent.filter((sent) => sent.userId === DAVE)).toEqual([]);
    expect(qq.sent.filter((sent) => sent.userId === ERIN).map((sent) => sent.text)).toEqual(["你好呀"]);

    const dave = turnsTriggeredBy(turns, triggers.dave);
    expect(dave).toHaveLength(2);
    const [killedFirst, killedAgain] = dave;
    expect(killedFirst).toMatchObject({
      status: "interrupted",
      reason: `interrupted by a restart; run again as turn ${killedAgain!.reply_id}`,
    });
    const reason = `interrupted by a restart again; its previous run (turn ${killedFirst!.reply_id}) had ended in a crash too, so it was not run again`;
    expect(killedAgain).toMatchObject({
      status: "interrupted",
      recovered_from: killedFirst!.reply_id,
      attempt: 2,
      reason,
    });
    expect(turnsTriggeredBy(turns, triggers.erin)).toMatchObject([{ status: "replied" }]);
    expect(settledLog).toMatchObject({ replyId: killedAgain!.reply_id, status: "interrupted", reason });
  });
});
