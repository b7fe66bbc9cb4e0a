/**
 * Model faults and a OneBot connection dropped mid-send. The invariant: every
 * trigger is answered exactly once, or recorded as failed with a reason — and it is on disk
 * as `running` while the model is being asked, so a crash at that moment is never silent
 * (test/faults/turns.test.ts shows the restart that follows).
 *
 * Pinned elsewhere, not repeated here: one 500 retried and answered once, and every model
 * down (503) failing the turn — test/agent/replies.e2e.test.ts; the connection dropped before
 * the send and restored, sent exactly once — test/app/app.e2e.test.ts ("holds a reply while
 * NapCat restarts"); how the client retries, waits out retry-after and falls back —
 * test/llm/llm-client.test.ts.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, plain } from "../support/messages.ts";
import { startScene } from "../support/scene.ts";
import { ScriptedLlmServer, type ScriptedResponse } from "../support/scripted-llm-server.ts";

const REPLY: ScriptedResponse = { toolCalls: [{ name: "reply", arguments: {} }] };
/** The provider's per-request limit in these tests, so a hanging model fails fast. */
const TIMEOUT_MS = 400;

interface TurnRow {
  status: string;
  reason: string | null;
}

describe("model and connection faults", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A bot whose planner falls back from `main` to `backup` when `withFallback`; no retries. */
  async function setup(withFallback = false) {
    const llm = await ScriptedLlmServer.start();
    const provider = (id: string) => ({
      id,
      type: "openai-compatible",
      baseUrl: llm.baseUrl,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: TIMEOUT_MS,
    });
    const planner = withFallback ? ["main/scripted-model", "backup/scripted-model"] : ["main/scripted-model"];
    const scene = await startScene({
      llm,
      config: {
        llm: {
          providers: [provider("main"), provider("backup")],
          models: { planner, replyer: ["main/scripted-model"] },
        },
      },
    });
    cleanups.push(scene.close);
    return scene;
  }

  /** The turns recorded for a trigger, read from the database file as another process would. */
  function turnsFor(bot: BotHarness, trigger: string): TurnRow[] {
    const db = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
    try {
      return db
        .prepare("SELECT status, reason FROM turns WHERE trigger_message_ids LIKE ? ORDER BY created_at")
        .all(`%"${trigger}"%`) as TurnRow[];
    } finally {
      db.close();
    }
  }

  /**
   * Runs one trigger against `faulty`, the model's first answer; checks that the turn was on
   * disk as running while the model was asked, and returns the turn's end as logged.
   */
  async function triggerWith(faulty: ScriptedResponse, then: ScriptedResponse[], withFallback = false) {
    const { llm, bot, qq } = await setup(withFallback);
    let trigger = "";
    let whileAsked: TurnRow[] = [];
    llm.enqueue(
      () => {
        whileAsked = turnsFor(bot, trigger);
        return faulty;
      },
      ...then,
    );
    trigger = qq.pushPrivateMessage({ userId: ALICE, message: plain("明天几点集合？") });
    const ended = await bot.turnFinished();
    expect(whileAsked).toEqual([{ status: "running", reason: null }]);
    await bot.stop();
    // Stopped: nothing can send any more, and the record is final.
    return { ended, sent: qq.sent, turns: turnsFor(bot, trigger), llm };
  }

  it.each([
    ["429", { status: 429, headers: { "retry-after": "3600" } }, "429"],
    ["500", { status: 500 }, "500"],
    ["a timeout", { ...REPLY, delayMs: 5_000 }, `timed out after ${TIMEOUT_MS} ms`],
    [
      "junk instead of JSON",
      { status: 200, body: "<html>gateway error</html>" },
      'every model for the LLM task "planner" failed (main/scripted-model: ',
    ],
  ] satisfies Array<[string, ScriptedResponse, string]>)(
    "records the trigger failed with the reason when the planner answers %s, and sends nothing",
    async (_fault, faulty, reason) => {
      const { ended, sent, turns, llm } = await triggerWith(faulty, []);
      expect(ended.data.status).toBe("failed");
      expect(turns).toEqual([{ status: "failed", reason: expect.stringContaining(reason) }]);
      expect(sent).toEqual([]);
      expect(llm.unscriptedRequests).toEqual([]);
    },
  );

  it("records the trigger failed when the replyer writes nothing, and sends nothing", async () => {
    const { sent, turns } = await triggerWith(REPLY, [{ text: "" }]);
    expect(turns).toEqual([{ status: "failed", reason: "replyer returned no text" }]);
    expect(sent).toEqual([]);
  });

  it("answers once from the fallback model when the first is rate limited", async () => {
    const { sent, turns, llm } = await triggerWith(
      { status: 429, headers: { "retry-after": "3600" } },
      [REPLY, { text: "八点，老地方" }],
      true,
    );
    expect(sent.map((message) => message.text)).toEqual(["八点，老地方"]);
    expect(turns).toEqual([{ status: "replied", reason: expect.stringContaining("replied to") }]);
    expect(llm.requests).toHaveLength(3);
  });

  it("sends a reply exactly once when the connection drops after it left, and records the doubt", async () => {
    const { llm, bot, qq } = await setup();
    llm.enqueue(REPLY, { text: "八点，老地方" });
    // NapCat takes the message, then the socket drops before its answer arrives.
    qq.delay("send_private_msg", 300);
    const trigger = qq.pushPrivateMessage({ userId: ALICE, message: plain("明天几点集合？") });
    await qq.waitForAction("send_private_msg", 5_000);
    await qq.restart(200);
    const failed = await bot.turnFinished();
    await qq.waitForSent(undefined, 2_000);
    await bot.stop();
    expect(qq.sent.map((message) => message.text)).toEqual(["八点，老地方"]);
    expect(qq.actions.filter((action) => action.action === "send_private_msg")).toHaveLength(1);
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain("the last may have gone out; not sent again");
    expect(turnsFor(bot, trigger)).toEqual([{ status: "failed", reason: failed.data.reason }]);
    const db = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
    try {
      const journal = db.prepare("SELECT state, error FROM sends WHERE reply_id = ?").all(failed.replyId);
      expect(journal).toEqual([{ state: "in_doubt", error: expect.stringContaining("send_private_msg") }]);
    } finally {
      db.close();
    }
  });
});
