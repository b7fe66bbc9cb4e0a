/**
 * What an untrusted plugin process can do to the machine from inside its sandbox
 * (docs/security.md, "Plugins"): the attacks of issue 51 on the launch itself. Each case lays
 * out a plugin folder as a package could ship it, asks the bot's ProcessIsolation for a launch
 * plan under `plugins.sandbox: bwrap` (bubblewrap runs here: .ci/run installs it) and runs it
 * for real; running as root (as CI does), the process is dropped to user 65534.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type LaunchRequest,
  outsideSandbox,
  ProcessIsolation,
  SANDBOX_MAX_PROCESSES,
} from "../../src/plugins/isolation/process-isolation.ts";
import type { PluginStatus } from "../../src/plugins/status-types.ts";
import { nodeStdioPlugin, PluginSandbox } from "../stdio/stdio-fixtures.ts";
import { apiClient } from "../support/api-client.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { LogCapture } from "../support/log-capture.ts";
import { waitFor } from "../support/wait.ts";

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

  it("stops a fork bomb at the process limit", async () => {
    const plugin = folder("fork-bomb");
    const bomb = `
      const { spawn } = require("node:child_process");
      let started = 0;
      let refused = "";
      for (let i = 0; i < ${SANDBOX_MAX_PROCESSES + 60}; i++) {
        const child = spawn("sleep", ["3"], { stdio: "ignore" });
        child.on("error", (error) => { refused = error.code; });
        child.on("spawn", () => started++);
      }
      setTimeout(() => { console.log(JSON.stringify({ started, refused })); process.exit(0); }, 1500);
    `;
    // A user of its own: as root the limit counts every process of the sandbox user, and other
    // tests' sandboxes running meanwhile must not be the ones refused.
    const own = new ProcessIsolation({
      settings: () => ({ ...SETTINGS, sandboxUid: 61051, sandboxGid: 61051 }),
      hidden: () => [],
      logger: logs.logger(),
    });
    const plan = await own.prepare(request(plugin, ["node", "-e", bomb]));
    const done = spawnSync(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, encoding: "utf8" });
    const seen = JSON.parse(done.stdout) as { started: number; refused: string };
    expect(seen.refused).toBe("EAGAIN");
    expect(seen.started).toBeLessThan(SANDBOX_MAX_PROCESSES);
  }, 30_000);

  it("runs an MCP server installed the npm way (dependencies hoisted), and names what a process could not see", async () => {
    // npm install my-mcp-server: its dependency lands beside it, one level up.
    const project = folder("npm-project");
    const server = join(project, "node_modules", "my-mcp-server");
    mkdirSync(join(server, "dist"), { recursive: true });
    mkdirSync(join(project, "node_modules", "hoisted-dependency"));
    writeFileSync(
      join(server, "package.json"),
      JSON.stringify({ name: "my-mcp-server", main: "dist/index.js" }),
    );
    writeFileSync(join(server, "dist", "index.js"), 'console.log(require("hoisted-dependency"));\n');
    writeFileSync(
      join(project, "node_modules", "hoisted-dependency", "index.js"),
      'module.exports = "hoisted ok";\n',
    );
    const entry = join(server, "dist", "index.js");
    const launch = { dataFolder: undefined, cwd: undefined, commandLineFolders: true };
    const done = await run(request(project, ["node", entry], launch));
    expect(done).toMatchObject({ status: 0, stdout: "hoisted ok\n" });

    // A file it was not shown: the failure says which path, and that it exists outside the sandbox.
    const elsewhere = folder("not-shown");
    writeFileSync(join(elsewhere, "settings.json"), "{}");
    const reader = join(server, "dist", "read.js");
    writeFileSync(
      reader,
      `require("fs").readFileSync(${JSON.stringify(join(elsewhere, "settings.json"))});\n`,
    );
    const failed = await run(request(project, ["node", reader], launch));
    expect(failed.status).not.toBe(0);
    expect(outsideSandbox(failed.stderr.split("\n"), "isolated")).toContain(
      `it could not see ${join(elsewhere, "settings.json")}, which exist on this machine but not in its sandbox`,
    );
    expect(outsideSandbox(failed.stderr.split("\n"), "trusted")).toBe("");
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

/**
 * Over loopback with no `server.token` (the default), a sandboxed plugin reached the console
 * API like the console does and installed an in-process plugin through it. The probe is a
 * real stdio plugin of a real bot: once the test has written the bot's address into its
 * data folder, it tries the API and a OneBot event post as the attack did.
 */
const API_PROBE = `
const fs = require("node:fs");
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const tryAll = async (base) => {
  const seen = {};
  const headers = { "x-tsumugi-console": "1", "content-type": "application/json" };
  for (const [name, path, init] of [
    ["config", "/api/config", {}],
    ["install", "/api/plugins/install/preview", { method: "POST", headers, body: JSON.stringify({ spec: "x" }) }],
    ["event", "/onebot/v11/http", { method: "POST", headers, body: "{}" }],
  ]) {
    try {
      seen[name] = (await fetch(base + path, init)).status;
    } catch (error) {
      seen[name] = "failed: " + error.message;
    }
  }
  fs.writeFileSync("data/seen.json", JSON.stringify(seen));
};
const timer = setInterval(() => {
  if (!fs.existsSync("data/url")) return;
  clearInterval(timer);
  tryAll(fs.readFileSync("data/url", "utf8"));
}, 50);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method } = JSON.parse(line);
  write(method === "activate" ? {} : { result: "ok" });
});
`;

describe("a sandboxed plugin and the bot's own server, with no server.token", () => {
  const sandbox = new PluginSandbox();
  let bot: BotProcess;
  afterAll(async () => {
    await bot?.dispose();
    sandbox.remove();
  });

  it("gets 403 from the console API and the OneBot paths, while the console works without a token", async () => {
    const probe = nodeStdioPlugin(sandbox, "api-probe", API_PROBE);
    chmodSync(sandbox.root, 0o755);
    mkdirSync(join(probe.dir, "data"));
    bot = await startBotProcess({
      config: {
        adapters: [
          { id: "qq", type: "onebot", mode: "http", path: "/onebot/v11/http", url: "http://127.0.0.1:9" },
        ],
        plugins: { dirs: [sandbox.root] },
      },
    });
    const api = apiClient(bot.baseUrl);
    await waitFor(
      async () =>
        (await api.get("/api/plugins")).body.plugins?.find(
          (plugin: PluginStatus) => plugin.id === "api-probe",
        )?.process?.state === "running",
      20_000,
      "the probe running",
    );
    writeFileSync(join(probe.dir, "data", "url"), bot.baseUrl);
    const seenFile = join(probe.dir, "data", "seen.json");
    await waitFor(() => existsSync(seenFile), 20_000, "the probe's attempts");
    expect(JSON.parse(readFileSync(seenFile, "utf8"))).toEqual({ config: 403, install: 403, event: 403 });
    expect(
      bot.logs.some((line) =>
        line.msg.includes("requests from untrusted plugin and MCP server processes are refused"),
      ),
    ).toBe(true);
    // The console itself (this test, on the bot's machine, with no token) is still served.
    expect((await api.get("/api/config")).status).toBe(200);
    expect((await api.post("/api/plugins/install/preview", { spec: "/no/such.tgz" })).status).toBe(400);
  }, 60_000);
});
