// Every command line of the project is parsed strictly (DESIGN.md §2: "an unknown argument exits
// 2 naming it"): a typo'd flag, a short flag, a bare config file name or a stray word is refused
// with one line naming it and the usage, never a command run on defaults. Real processes, as an
// operator types them.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** What each npm script runs, as node arguments. */
const COMMANDS: Record<string, string[]> = {
  start: ["--import", TSX_LOADER, join(ROOT, "src/main.ts")],
  doctor: ["--import", TSX_LOADER, join(ROOT, "scripts/doctor.ts")],
  backup: ["--import", TSX_LOADER, join(ROOT, "scripts/backup.ts")],
  plugin: ["--import", TSX_LOADER, join(ROOT, "scripts/plugin.ts")],
  model: ["--import", TSX_LOADER, join(ROOT, "scripts/model.ts")],
  "new-plugin": [join(ROOT, "bin/tsumugi.mjs"), "new-plugin"],
  eval: ["--import", TSX_LOADER, join(ROOT, "scripts/eval.ts")],
};

const cwd = mkdtempSync(join(tmpdir(), "tsumugi-argv-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...COMMANDS[command]!, ...args],
      // A bot that wrongly starts is stopped by the timeout (and the test then fails on its code).
      { cwd, env: { ...process.env, TSUMUGI_CONFIG: "" }, timeout: 50_000, killSignal: "SIGKILL" },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/**
 * One refused command line per command, each a different mistake (a process start costs
 * seconds here; the parser's other refusals are pinned in test/util/command-line.test.ts).
 */
const REFUSED: Record<string, { args: string[]; line: RegExp }> = {
  start: {
    args: ["--confg", "my.yaml"],
    line: /^tsumugi: unknown option "--confg" — usage: npm start -- \[--config FILE\]/,
  },
  doctor: {
    args: ["my.yaml"],
    line: /^doctor: unexpected argument "my\.yaml" \(a config file is given with --config my\.yaml\) — usage: npm run doctor/,
  },
  backup: {
    args: ["-c", "my.yaml"],
    line: /^backup: unknown option "-c" — usage: npm run backup -- \[FILE\]/,
  },
  plugin: {
    args: ["list", "--yess"],
    line: /^plugin: unknown option "--yess" — usage: npm run plugin -- install/,
  },
  model: { args: ["download"], line: /^model: unknown command "download" — usage: npm run model -- runtime/ },
  "new-plugin": {
    args: ["my-plugin", "--lang"],
    line: /^new-plugin: --lang needs a value — usage: tsumugi new-plugin <id>/,
  },
  eval: {
    args: ["--scripted", "--paralel", "2"],
    line: /^eval: unknown option "--paralel" — usage: npm run eval --/,
  },
};

describe("strict command lines", () => {
  for (const [command, { args, line }] of Object.entries(REFUSED)) {
    it(
      `${command} ${args.join(" ")}: exit 2, one line naming the argument and the usage`,
      { timeout: 60_000 },
      async () => {
        const result = await run(command, args);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(line)]);
        expect(result.stdout).toBe("");
      },
    );
  }

  for (const command of Object.keys(COMMANDS)) {
    it(`${command} --help: the usage, exit 0`, { timeout: 60_000 }, async () => {
      const result = await run(command, ["--help"]);
      expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: /), stderr: "" });
    });
  }
});
