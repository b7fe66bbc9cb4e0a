import { describe, expect, it } from "vitest";
import { KeyedQueue } from "../../src/chat/keyed-queue.ts";
import { sleep } from "../support/wait.ts";

describe("KeyedQueue", () => {
  it("runs one session's tasks in order and different sessions concurrently", async () => {
    const queue = new KeyedQueue(() => {});
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await sleep(ms);
      log.push(`${name} end`);
    };
    await Promise.all([
      queue.push("a", task("a1", 30)),
      queue.push("a", task("a2", 1)),
      queue.push("b", task("b1", 5)),
    ]);
    expect(log.indexOf("a1 end")).toBeLessThan(log.indexOf("a2 start"));
    expect(log.indexOf("b1 start")).toBeLessThan(log.indexOf("a1 end"));
    expect(queue.activeKeys).toBe(0);
  });

  it("keeps going after a failing task and reports it", async () => {
    const errors: unknown[] = [];
    const queue = new KeyedQueue((_key, error) => errors.push(error));
    const ran: number[] = [];
    void queue.push("a", () => {
      throw new Error("boom");
    });
    await queue.push("a", () => {
      ran.push(2);
    });
    expect(ran).toEqual([2]);
    expect(errors).toHaveLength(1);
  });

  it("drains on close and refuses new work", async () => {
    const queue = new KeyedQueue(() => {});
    let finished = false;
    void queue.push("a", async () => {
      await sleep(50);
      finished = true;
    });
    expect(await queue.close(1_000)).toBe(true);
    expect(finished).toBe(true);
    await expect(queue.push("a", () => {})).rejects.toThrow("closed");
  });

  it("gives up waiting after the timeout", async () => {
    const queue = new KeyedQueue(() => {});
    void queue.push("a", async () => {
      await sleep(500);
    });
    expect(await queue.close(20)).toBe(false);
  });
});
