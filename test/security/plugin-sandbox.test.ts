/**
 * What an untrusted plugin process can do to the machine from inside its sandbox
 * (docs/security.md, "Plugins"): the attacks of issue 51 on the launch itself. Each case lays
 * out a plugin folder as a package could ship it, asks the bot's ProcessIsolation for a launch
 * plan under `plugins.sandbox: bwrap` (bubblewrap runs here: .ci/run installs it) and runs it
 * for real; running as root (as CI does), the process is dropped to user 65534.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type LaunchRequest, ProcessIsolation } from "../../src/plugins/isolation/process-isolation.ts";
import { LogCapture } from "../support/log-capture.ts";

const asRoot = process.getuid?.() === 0;
const SETTINGS = { sandbox: "bwrap", sandboxMemoryMb: 512, sandboxUid: 65534, sandboxGid: 65534 } as const;

describe("an untrusted plugin process and the machine", () => {
  const folders: string[] = [];
  const logs = new LogCapture();
  const isolation = new ProcessIsolation({
    settings: () => SETTINGS,
    hidden: () => [],
    logger: logs.logger(),
  });
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  /** A folder readable by the sandbox user, as a plugin folder is. */
  const folder = (name: string): string => {
    const dir = mkdtempSync(join(tmpdir(), `tsumugi-${name}-`));
    chmodSync(dir, 0o755);
    folders.push(dir);
    return dir;
  };
  const request = (dir: string, command: string[], more: Partial<LaunchRequest> = {}): LaunchRequest => ({
    command,
    cwd: dir,
    dataFolder: join(dir, "data"),
    env: { PATH: process.env.PATH ?? "" },
    trusted: false,
    network: true,
    ...more,
  });
  /** Runs a plan to its end: its exit status and what it printed. */
  const run = async (launch: LaunchRequest) => {
    const plan = await isolation.prepare(launch);
    const done = spawnSync(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, encoding: "utf8" });
    return { status: done.status, stdout: done.stdout, stderr: done.stderr };
  };

  it("refuses a data folder that is a link, and never gives the link's target to the sandbox user", async () => {
    // What the attack pointed it at: a folder of the bot's installation, owned by root.
    const target = folder("installation");
    writeFileSync(join(target, "index.js"), "module.exports = 1;\n");
    const plugin = folder("data-link");
    writeFileSync(join(plugin, "plugin.cjs"), 'require("fs").writeFileSync("data/index.js", "owned");\n');
    symlinkSync(target, join(plugin, "data"));

    await expect(run(request(plugin, ["node", "plugin.cjs"]))).rejects.toThrow(
      `${join(plugin, "data")} is a symbolic link (to ${target})`,
    );
    expect(statSync(target).uid).toBe(process.getuid?.());
    expect(statSync(join(target, "index.js")).uid).toBe(process.getuid?.());

    // A link to a folder inside the plugin's own is refused the same way.
    const inner = folder("data-inner-link");
    mkdirSync(join(inner, "real"));
    symlinkSync(join(inner, "real"), join(inner, "data"));
    await expect(run(request(inner, ["node", "-e", "0"]))).rejects.toThrow("is a symbolic link");
  });

  it("makes a missing data folder and gives it to the sandbox user, who writes there and nowhere else", async () => {
    const plugin = folder("data-plain");
    const probe =
      'const fs = require("fs"); fs.writeFileSync("data/ok", "1"); try { fs.writeFileSync("x", "1"); console.log("wrote"); } catch (e) { console.log(e.code); }';
    const done = await run(request(plugin, ["node", "-e", probe]));
    expect(done).toMatchObject({ status: 0, stdout: expect.stringMatching(/^(EROFS|EACCES)/) });
    if (asRoot) expect(statSync(join(plugin, "data")).uid).toBe(65534);
    expect(statSync(join(plugin, "data", "ok")).isFile()).toBe(true);
  });

  it("mounts no folder a plugin's entry names outside its own; an operator's MCP command line gets them", async () => {
    // Another plugin's secrets, a credentials folder: readable by the sandbox user on the disk.
    const secrets = folder("credentials");
    writeFileSync(join(secrets, "token.txt"), "secret-of-another-plugin-51");
    writeFileSync(join(secrets, "tool.sh"), "#!/bin/sh\necho ran\n", { mode: 0o755 });
    const plugin = folder("entry-paths");
    const asPlugin = await run(request(plugin, ["cat", join(secrets, "token.txt")]));
    expect(asPlugin.status).not.toBe(0);
    expect(asPlugin.stdout).not.toContain("secret-of-another-plugin-51");
    expect(asPlugin.stderr).toContain("No such file or directory");
    const program = await run(request(plugin, [join(secrets, "tool.sh")]));
    expect(program.stdout).not.toContain("ran");

    const asServer = await run(
      request(plugin, ["cat", join(secrets, "token.txt")], {
        dataFolder: undefined,
        commandLineFolders: true,
      }),
    );
    expect(asServer).toMatchObject({ status: 0, stdout: "secret-of-another-plugin-51" });
  });
});
