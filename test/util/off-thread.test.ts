import { describe, expect, it } from "vitest";
import { runOffThread } from "../../src/util/off-thread.ts";
import { lagDuring } from "../support/event-loop-lag.ts";

/** The untrusted-file runner: a worker thread with a heap and a time limit, ended at either. */
const ENTRY = new URL("../fixtures/off-thread/misbehaving-worker.ts", import.meta.url);
const LIMITS = { timeoutMs: 3_000, maxHeapMb: 32 };

describe("runOffThread", { timeout: 30_000 }, () => {
  it("answers with the worker's value", async () => {
    expect(await runOffThread(ENTRY, { do: "echo", text: "你好" }, LIMITS)).toEqual({
      ok: true,
      value: "echo: 你好",
    });
  });

  it("ends a worker that never finishes at the time limit, the event loop free meanwhile", async () => {
    const { value, lagMs } = await lagDuring(() =>
      runOffThread(ENTRY, { do: "spin" }, { ...LIMITS, timeoutMs: 1_000 }),
    );
    expect(value).toEqual({ ok: false, failure: "timeout", reason: "not done after 1000 ms" });
    expect(lagMs).toBeLessThan(500);
  });

  it("ends a worker that takes more memory than it may, and the bot's heap is untouched", async () => {
    const before = process.memoryUsage().heapUsed;
    const { value, lagMs } = await lagDuring(() => runOffThread(ENTRY, { do: "hoard" }, LIMITS));
    expect(value).toEqual({ ok: false, failure: "memory", reason: "ran out of its 32 MB of memory" });
    expect(lagMs).toBeLessThan(500);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
  });

  it("gives a thrown error's first line as the reason", async () => {
    expect(await runOffThread(ENTRY, { do: "throw" }, LIMITS)).toEqual({
      ok: false,
      failure: "error",
      reason: "refused on purpose",
    });
  });

  it("stops a job when its caller gives up", async () => {
    const signal = AbortSignal.timeout(300);
    expect(await runOffThread(ENTRY, { do: "spin" }, LIMITS, signal)).toMatchObject({
      ok: false,
      failure: "timeout",
    });
  });
});
