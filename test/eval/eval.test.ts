import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, it, type TestContext } from "vitest";
import { parse, stringify } from "yaml";
import { buildServer, serverBuildIsStale } from "../../scripts/build-server.ts";

/**
 * `npm run eval` as an operator runs it: the command in its own process, starting the real bot
 * process and playing the scenario files over the OneBot wire, here against the scripted model.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");
const FIXTURES = join(ROOT, "test/eval/fixtures");

/**
 * Shipped scenarios that need a change landing in another branch: a poke of the bot as a
 * trigger, and recalled messages hidden from turns in progress. Empty this list once it is merged.
 */
interface EvalRun {
  code: number | null;
  stdout: string;
  stderr: string;
  report?: {
    configs: string[];
    scenarios: Array<{
      name: string;
      config: string;
      passed: boolean;
      failures: string[];
      botMessages: number;
      modelCalls: number;
      tokens: number;
      latencyMs: number | null;
      messages: string[];
    }>;
    passed: number;
    failed: number;
  };
}

// Each run is a process of its own with its own bots, ports and folders: the runs overlap, and
// the whole file takes about as long as its longest run.
describe.concurrent("npm run eval", () => {
  // Built once up front: an eval that finds the build stale builds it, and runs at once would
  // each write the same folder.
  beforeAll(async () => {
    if (serverBuildIsStale()) await buildServer();
  }, 120_000);

  /** A folder of the test's own, deleted when it finishes. */
  function testFolder(context: TestContext, prefix: string): string {
    const folder = mkdtempSync(join(tmpdir(), prefix));
    context.onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    return folder;
  }

  async function runEval(context: TestContext, args: string[]): Promise<EvalRun> {
    const jsonFile = join(testFolder(context, "tsumugi-eval-test-"), "report.json");
    const child = spawn(TSX, ["scripts/eval.ts", "--json", jsonFile, ...args], {
      cwd: ROOT,
      env: { ...process.env, TSUMUGI_CONFIG: "" },
      detached: true,
    });
    // The eval's own process group holds the bots it started.
    context.onTestFinished(() => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    let report: EvalRun["report"];
    try {
      report = JSON.parse(readFileSync(jsonFile, "utf8"));
    } catch {
      report = undefined;
    }
    return { code, stdout, stderr, report };
  }

  it("runs every shipped scenario against the scripted model, a row and a progress line each", async (context) => {
    const { expect } = context;
    const shipped = readdirSync(join(ROOT, "eval"))
      .filter((name) => name.endsWith(".yaml"))
      .map((name) => (parse(readFileSync(join(ROOT, "eval", name), "utf8")) as { name: string }).name);
    expect(shipped.length).toBeGreaterThanOrEqual(30);

    const run = await runEval(context, ["--scripted", "--parallel", "4"]);

    const report = run.report;
    expect(report, run.stderr).toBeDefined();
    expect(report?.configs).toEqual(["scripted"]);
    expect(report?.scenarios.map((scenario) => scenario.name).sort()).toEqual([...shipped].sort());
    const failed = report?.scenarios.filter((scenario) => !scenario.passed);
    expect(failed).toEqual([]);
    expect(report?.passed).toBe(report?.scenarios.filter((scenario) => scenario.passed).length);
    expect(report?.failed).toBe(report?.scenarios.filter((scenario) => !scenario.passed).length);
    expect(run.code).toBe(report?.failed === 0 ? 0 : 1);

    const answered = report?.scenarios.find((scenario) => scenario.name === "被@时回答");
    expect(answered).toMatchObject({ passed: true, botMessages: 1, modelCalls: 2 });
    expect(answered?.tokens).toBeGreaterThan(0);
    expect(answered?.latencyMs).toBeGreaterThan(0);
    expect(answered?.messages).toEqual(["李四，你说「今天中午吃什么好？」，我想想……"]);
    const silent = report?.scenarios.find((scenario) => scenario.name === "闲聊时不插嘴");
    expect(silent).toMatchObject({ passed: true, botMessages: 0, modelCalls: 0, tokens: 0, latencyMs: null });

    for (const name of shipped) {
      expect(run.stdout).toMatch(
        new RegExp(`^\\[\\d+/${shipped.length}\\] scripted · ${escaped(name)}: `, "m"),
      );
      expect(run.stdout).toMatch(new RegExp(`^${escaped(name)} +(passed|FAILED) `, "m"));
    }
    expect(run.stdout).toContain(`total scripted: ${report?.passed} passed, ${report?.failed} failed`);
  }, 180_000);

  it("reports a scenario the scripted model breaks as failed, with the reasons, and exits 1", async (context) => {
    const { expect } = context;
    const run = await runEval(context, ["--scripted", join(FIXTURES, "failing")]);

    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({ passed: 0, failed: 1 });
    const [scenario] = run.report?.scenarios ?? [];
    expect(scenario).toMatchObject({
      name: "模型答错又重复",
      passed: false,
      botMessages: 2,
      modelCalls: 4,
      messages: ["会议是周四下午。", "会议是周四下午！"],
      failures: [
        'mustContain "周五": in no bot message',
        'repeat: "会议是周四下午！" after "会议是周四下午。"',
      ],
    });
    expect(run.stdout).toMatch(
      /^模型答错又重复 +FAILED +2 +4 .*mustContain "周五": in no bot message \(\+1 more\)$/m,
    );
  }, 120_000);

  it("puts several configs side by side, a column each, and says why a config's turns failed", async (context) => {
    const { expect } = context;
    const unreachable = join(testFolder(context, "tsumugi-eval-config-"), "unreachable.yaml");
    writeFileSync(
      unreachable,
      stringify({
        llm: {
          providers: [
            { id: "gone", type: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", apiKey: "x" },
          ],
          models: { planner: ["gone/model"], replyer: ["gone/model"] },
        },
      }),
    );

    const run = await runEval(context, [
      "--scripted",
      "--config",
      unreachable,
      join(ROOT, "eval/addressed-mention.yaml"),
    ]);

    expect(run.code).toBe(1);
    expect(run.report?.configs).toEqual([unreachable, "scripted"]);
    expect(run.report).toMatchObject({ passed: 1, failed: 1 });
    const [broken, scripted] = run.report?.scenarios ?? [];
    expect(scripted).toMatchObject({ name: "被@时回答", config: "scripted", passed: true, botMessages: 1 });
    expect(broken).toMatchObject({ name: "被@时回答", config: unreachable, passed: false, botMessages: 0 });
    expect(broken?.failures).toContainEqual(expect.stringMatching(/^turn failed: .*gone\/model/));
    expect(run.stdout).toMatch(new RegExp(`^scenario +${escaped(unreachable)} +scripted$`, "m"));
    expect(run.stdout).toMatch(
      /^被@时回答 +✗ 0 msg · 0 calls · 0 tok · - +✓ 1 msg · 2 calls · \d+ tok · [\d.]+ s$/m,
    );
    expect(run.stdout).toContain(`total ${unreachable}: 0 passed, 1 failed`);
    expect(run.stdout).toContain("total scripted: 1 passed, 0 failed");
  }, 120_000);

  it("refuses a bad scenario file with one line naming the file and the step, exit 2", async (context) => {
    const { expect } = context;
    const file = join(FIXTURES, "invalid", "bad-step.yaml");
    const run = await runEval(context, ["--scripted", file]);

    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`eval: ${file}: steps[1].wait: must be integer`);
    expect(run.report).toBeUndefined();
  }, 60_000);
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
