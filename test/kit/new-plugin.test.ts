import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = new URL("../../bin/tsumugi.mjs", import.meta.url).pathname;
/** The generated test starts a whole bot twice (and, for Python and stdio, the plugin's process). */
const GENERATED_TEST_TIMEOUT_MS = 240_000;

async function exitOf(command: string, args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, timeout: GENERATED_TEST_TIMEOUT_MS });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("tsumugi new-plugin", () => {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-new-plugin-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ["ts", ["index.ts", "plugin.json"]],
    ["python", ["plugin.json", "plugin.py"]],
    ["stdio", ["plugin.json", "plugin.mjs"]],
  ])(
    "scaffolds a %s plugin whose own test passes against a real bot",
    async (language, files) => {
      const id = `hello-${language}`;
      const created = await exitOf(process.execPath, [BIN, "new-plugin", id, "--lang", language], root);
      expect(created).toMatchObject({
        code: 0,
        stdout: expect.stringContaining(`created the ${language} plugin`),
      });
      const folder = join(root, id);
      expect(readdirSync(folder).sort()).toEqual(
        [".gitignore", "node_modules", "package.json", "test", ...files].sort(),
      );
      expect(JSON.parse(readFileSync(join(folder, "plugin.json"), "utf8")).id).toBe(id);

      const tested = await exitOf("npm", ["test"], folder);
      expect(tested.stdout).toContain("# pass 2");
      expect(tested.stdout).toContain("# fail 0");
      expect(tested.code).toBe(0);
    },
    GENERATED_TEST_TIMEOUT_MS,
  );

  it("refuses an id plugins cannot have and a folder that is not empty", async () => {
    const badId = await exitOf(process.execPath, [BIN, "new-plugin", "My.Plugin"], root);
    expect(badId).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('the id "My.Plugin" must match'),
    });
    await exitOf(process.execPath, [BIN, "new-plugin", "twice"], root);
    const again = await exitOf(process.execPath, [BIN, "new-plugin", "twice", "--lang", "stdio"], root);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining("exists and is not empty") });
  });
});
