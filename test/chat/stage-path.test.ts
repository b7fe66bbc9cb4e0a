import { describe, expect, it } from "vitest";
import { type Stage, StagePath } from "../../src/chat/stage-path.ts";

interface Item {
  key: string;
  id: string;
}

/** A path whose stages record what passed them; `slow` items wait at "lookup" until released. */
function recordingPath() {
  const passed: string[] = [];
  const failures: string[] = [];
  const releases = new Map<string, () => void>();
  const record =
    (name: string): Stage<Item>["run"] =>
    (item) => {
      passed.push(`${name} ${item.id}`);
      return { go: item };
    };
  const path = new StagePath<Item>(
    [
      { name: "first", run: record("first") },
      {
        name: "lookup",
        run: (item) => {
          passed.push(`lookup ${item.id}`);
          if (!item.id.startsWith("slow")) return { go: item };
          return new Promise((resolve) => releases.set(item.id, () => resolve({ go: item })));
        },
      },
      {
        name: "gate",
        run: (item) => {
          if (item.id.startsWith("bad")) throw new Error("broken stage");
          return item.id.startsWith("no") ? { stop: `refused ${item.id}` } : { go: item };
        },
      },
      { name: "last", run: record("last") },
    ],
    { orderBy: (item) => item.key, failed: (item, stage) => failures.push(`${stage} ${item.id}`) },
  );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { path, passed, failures, release: (id: string) => releases.get(id)?.(), settle };
}

describe("StagePath", () => {
  it("runs the stages in their order, at once while they answer at once", () => {
    const { path, passed } = recordingPath();
    expect(path.names).toEqual(["first", "lookup", "gate", "last"]);
    expect(path.run({ key: "a", id: "m1" })).toEqual({ passed: true });
    expect(passed).toEqual(["first m1", "lookup m1", "last m1"]);
  });

  it("stops a subject at the stage that refuses it, with its reason, and runs no later stage", () => {
    const { path, passed } = recordingPath();
    expect(path.run({ key: "a", id: "no1" })).toEqual({ stoppedAt: "gate", reason: "refused no1" });
    expect(passed).toEqual(["first no1", "lookup no1"]);
  });

  it("enters at a named stage", () => {
    const { path, passed } = recordingPath();
    expect(path.from("gate")({ key: "a", id: "m1" })).toEqual({ passed: true });
    expect(passed).toEqual(["last m1"]);
    expect(() => path.from("nowhere")).toThrow(/no stage "nowhere" in first → lookup → gate → last/);
  });

  it("keeps a key's later subjects behind one that waits, from that stage on; other keys go on", async () => {
    const { path, passed, release, settle } = recordingPath();
    const slow = path.run({ key: "a", id: "slow1" });
    path.run({ key: "a", id: "m2" });
    path.run({ key: "b", id: "m3" });
    await settle();
    expect(passed).toEqual(["first slow1", "lookup slow1", "first m2", "first m3", "lookup m3", "last m3"]);
    release("slow1");
    expect(await slow).toEqual({ passed: true });
    await settle();
    expect(passed.slice(6)).toEqual(["last slow1", "lookup m2", "last m2"]);
  });

  it("reports a stage that throws and goes on with the next subject", async () => {
    const { path, passed, failures } = recordingPath();
    expect(path.run({ key: "a", id: "bad1" })).toEqual({ stoppedAt: "gate", reason: "failed" });
    path.run({ key: "a", id: "m2" });
    expect(failures).toEqual(["gate bad1"]);
    expect(passed.at(-1)).toBe("last m2");
  });
});
