import { execFile } from "node:child_process";
import {
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, join } from "node:path";
import type { Logger } from "../../log/logger.ts";
import { projectPath } from "../../util/project-files.ts";
import { errorMessage } from "../../util/values.ts";
import type { PluginSettings } from "../config.ts";
import type { LaunchMode } from "../status-types.ts";
import { bwrapArguments } from "./bwrap-view.ts";
import { argumentFolders, findProgram, governingPackageFiles, programFolders } from "./program-files.ts";

/** The `plugins` keys that say how untrusted processes start. */
export type IsolationSettings = Pick<
  PluginSettings,
  "sandbox" | "sandboxMemoryMb" | "sandboxUid" | "sandboxGid"
>;

export interface ProcessIsolationDeps {
  settings: () => IsolationSettings;
  /** Paths no untrusted process may see: the bot's config file and data folder. */
  hidden: () => string[];
  logger: Logger;
}

/** One process to start: a stdio or Python plugin, or an MCP stdio server. */
export interface LaunchRequest {
  /** The program and its arguments (no shell). */
  command: string[];
  /** Where it starts: a plugin's folder, an MCP server's `cwd`. Shown read-only when isolated. */
  cwd?: string;
  /** A folder of its own it may write (a plugin's `data/`): created when missing. */
  dataFolder?: string;
  /** Its whole environment (the basic variables and what it was given). */
  env: Record<string, string>;
  /** Listed in `plugins.trusted` (`mcp.servers[].trusted`): started as the bot's user, no isolation. */
  trusted: boolean;
  /** false: no network when isolated (a plugin manifest's `network`). */
  network: boolean;
  /**
   * An operator's own command line (`mcp.servers[].command`): the folders of the files it
   * names by absolute path, and of a program given by path, are shown read-only. Never for a
   * plugin's `entry`, which the package's author wrote: it sees its own folder and what is
   * found on PATH, and an absolute path elsewhere is simply not there.
   */
  commandLineFolders?: boolean;
}

/** How to spawn it. */
export interface LaunchPlan {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  mode: Exclude<LaunchMode, "in-process">;
}

/** The helpers found on this machine, looked for once. */
interface HostTools {
  /** bwrap, when a sandbox could be started with it. */
  bwrap?: string;
  /** Why not, when it could not. */
  bwrapProblem?: string;
  setpriv?: string;
  prlimit?: string;
}

const PROBE_TIMEOUT_MS = 10_000;
/**
 * Processes (threads count too) an untrusted process may have running, RLIMIT_NPROC: a fork
 * bomb stops there. Counted per user, so as root for all untrusted processes together (they
 * all run as plugins.sandboxUid), and per sandbox otherwise (each is a user namespace of its own).
 */
export const SANDBOX_MAX_PROCESSES = 256;
/** The project's files a plugin may load: its node_modules (for Node plugins) and the SDKs (Python's). */
const PROJECT_FOLDERS = [projectPath("node_modules"), projectPath("sdk")];

/**
 * Starts untrusted plugin processes (docs/security.md, "Plugins"). `isolated`: in a
 * bubblewrap sandbox that shows the system folders, the program's installation, the
 * project's node_modules and SDKs, its own folder (and, for an operator's MCP command line,
 * the folders it names) read-only, its data folder writable, a private /tmp and a /proc of its own, and
 * never the bot's config file or data folder. `unisolated` (no bwrap): as it is, with only
 * its clean environment to keep the bot's secrets from it. Both: another user when the bot
 * runs as root, and a memory limit.
 */
export class ProcessIsolation {
  private tools: Promise<HostTools> | undefined;
  private warned = false;

  constructor(private readonly deps: ProcessIsolationDeps) {}

  async prepare(request: LaunchRequest): Promise<LaunchPlan> {
    const [program = "", ...args] = request.command;
    const cwd = request.cwd ?? process.cwd();
    if (request.trusted) return { file: program, args, cwd, env: request.env, mode: "trusted" };
    const settings = this.deps.settings();
    const tools = await this.hostTools();
    const bwrap = settings.sandbox === "off" ? undefined : tools.bwrap;
    if (!bwrap && settings.sandbox === "bwrap") {
      throw new Error(`plugins.sandbox is "bwrap", but bubblewrap cannot run here: ${tools.bwrapProblem}`);
    }
    if (!bwrap && settings.sandbox === "auto") this.warnUnisolated(tools);
    // Elsewhere than on Linux there is no sandbox, setpriv or prlimit: the clean environment is all.
    if (process.platform !== "linux") {
      return { file: program, args, cwd, env: request.env, mode: "unisolated" };
    }
    const found = findProgram(program, request.env.PATH, cwd);
    if (!found) throw new Error(`command "${program}" not found`);
    const prefix = this.limits(settings, tools, bwrap !== undefined);
    if (this.runsAsRoot() && request.cwd) assertEnterable(request.cwd, settings);
    if (request.dataFolder) this.prepareDataFolder(request.dataFolder, request.cwd, settings);
    if (!bwrap) {
      const [file = found, ...rest] = [...prefix, found, ...args];
      return { file, args: rest, cwd, env: request.env, mode: "unisolated" };
    }
    const operators = request.commandLineFolders === true;
    const ownFolders = [...(operators ? argumentFolders(args) : []), ...(request.cwd ? [request.cwd] : [])];
    const view = {
      readOnly: [
        ...(operators || !program.includes("/") ? programFolders(found) : []),
        ...PROJECT_FOLDERS,
        ...ownFolders,
        ...governingPackageFiles(ownFolders),
      ],
      writable: request.dataFolder ? [request.dataFolder] : [],
      hidden: this.deps.hidden(),
      cwd: request.cwd ?? "/tmp",
      network: request.network,
    };
    const { TEMP: _temp, TMP: _tmp, ...env } = request.env;
    return {
      file: bwrap,
      args: [...bwrapArguments(view), "--", ...prefix, found, ...args],
      cwd: request.cwd ?? "/",
      // Home and temporary files in its private /tmp: the bot's home is not there.
      env: { ...env, HOME: "/tmp", TMPDIR: "/tmp" },
      mode: "isolated",
    };
  }

  /** The helpers, looked for on the first untrusted start (not at all on a bot without one). */
  private hostTools(): Promise<HostTools> {
    this.tools ??= findHostTools();
    return this.tools;
  }

  /**
   * The wrappers the command runs under: `setpriv` to another user (as root), `prlimit` for
   * memory and the process count. Not isolated and not as root, the process count would be
   * the bot's own user's, the bot's threads included: it is not limited then.
   */
  private limits(settings: IsolationSettings, tools: HostTools, isolated: boolean): string[] {
    const prefix: string[] = [];
    if (this.runsAsRoot()) {
      if (!tools.setpriv) {
        throw new Error(
          "the bot runs as root and setpriv (util-linux) was not found to start an untrusted process as another user; install it, or list the plugin as trusted",
        );
      }
      prefix.push(
        tools.setpriv,
        `--reuid=${settings.sandboxUid}`,
        `--regid=${settings.sandboxGid}`,
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
      );
    }
    const limits = [
      ...(settings.sandboxMemoryMb > 0 ? [`--data=${settings.sandboxMemoryMb * 1024 * 1024}`] : []),
      ...(isolated || this.runsAsRoot() ? [`--nproc=${SANDBOX_MAX_PROCESSES}`] : []),
    ];
    if (limits.length > 0 && tools.prlimit) prefix.push(tools.prlimit, ...limits, "--");
    return prefix;
  }

  /**
   * The process's writable folder exists and, as root, belongs to the user it runs as. It must
   * be a real folder inside the plugin's own: a `data` link a package shipped (to an
   * installation folder, to /etc) would otherwise be given to the sandbox user and bound
   * writable, so the start is refused. Nothing is ever followed through a link.
   */
  private prepareDataFolder(
    folder: string,
    pluginDir: string | undefined,
    settings: IsolationSettings,
  ): void {
    if (!lstatSync(folder, { throwIfNoEntry: false })) mkdirSync(folder);
    const stat = lstatSync(folder);
    const real = realpathSync(folder);
    const inside = pluginDir === undefined || real === join(realpathSync(pluginDir), basename(folder));
    if (!stat.isDirectory() || !inside) {
      throw new Error(
        `${folder} is ${stat.isSymbolicLink() ? `a symbolic link (to ${readlinkSync(folder)})` : "not a folder"}: a plugin's data folder must be a real folder inside the plugin's own; remove it, and the plugin gets an empty one`,
      );
    }
    if (!this.runsAsRoot()) return;
    try {
      const { sandboxUid: uid, sandboxGid: gid } = settings;
      lchownSync(folder, uid, gid);
      // And what lies directly in it (a file the operator put there): never through a link,
      // and no deeper, where a folder the process owns could be swapped for a link meanwhile.
      for (const entry of readdirSync(folder)) lchownSync(join(folder, entry), uid, gid);
    } catch (error) {
      this.deps.logger.warn(
        { folder, err: errorMessage(error) },
        "the plugin's data folder could not be prepared",
      );
    }
  }

  private runsAsRoot(): boolean {
    return process.getuid?.() === 0;
  }

  private warnUnisolated(tools: HostTools): void {
    if (this.warned) return;
    this.warned = true;
    this.deps.logger.warn(
      { why: tools.bwrapProblem },
      `untrusted plugins and MCP servers are NOT isolated: bubblewrap (bwrap) cannot run here (${tools.bwrapProblem}). They get a clean environment${this.runsAsRoot() ? " and run as another user" : ""}, but can read any file the bot's user can, its config file included. Install bubblewrap (apt install bubblewrap) or see docs/security.md`,
    );
  }
}

/**
 * A folder the process starts in must let the user it runs as in: said plainly here, as the
 * process itself would fail with a bare "permission denied".
 */
function assertEnterable(folder: string, settings: IsolationSettings): void {
  const { mode, uid, gid } = statSync(folder);
  const bits = uid === settings.sandboxUid ? mode >> 6 : gid === settings.sandboxGid ? mode >> 3 : mode;
  if ((bits & 0o5) !== 0o5) {
    throw new Error(
      `${folder} cannot be read by user ${settings.sandboxUid} (plugins.sandboxUid), which untrusted processes run as when the bot runs as root: make it readable (chmod o+rx), or mark it trusted`,
    );
  }
}

/** Finds bwrap, setpriv and prlimit on PATH, and starts one sandbox to see that bwrap works here. */
async function findHostTools(): Promise<HostTools> {
  if (process.platform !== "linux") return { bwrapProblem: "it runs on Linux only" };
  const look = (name: string) => findProgram(name, process.env.PATH, process.cwd());
  const tools: HostTools = {};
  const setpriv = look("setpriv");
  const prlimit = look("prlimit");
  if (setpriv) tools.setpriv = setpriv;
  if (prlimit) tools.prlimit = prlimit;
  const bwrap = look("bwrap");
  if (!bwrap) return { ...tools, bwrapProblem: "bwrap is not installed" };
  const trial = [
    ...bwrapArguments({ readOnly: [], writable: [], hidden: [], cwd: "/", network: true }),
    "--",
    "true",
  ];
  const problem = await new Promise<string | undefined>((resolve) =>
    execFile(
      bwrap,
      trial,
      { timeout: PROBE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? "" } },
      (error, _out, stderr) => resolve(error ? stderr.trim().split("\n")[0] || error.message : undefined),
    ),
  );
  return problem ? { ...tools, bwrapProblem: problem } : { ...tools, bwrap };
}

/**
 * For the message of an isolated process that died: the paths its last lines name that exist
 * on this machine — so the process could not see them — with what to do (empty otherwise).
 */
export function outsideSandbox(lines: readonly string[], mode: LaunchMode | undefined): string {
  if (mode !== "isolated") return "";
  const named = lines.join("\n").match(/(?:file:\/\/)?\/[^\s'"`()<>,;]+/g) ?? [];
  const unseen = [
    ...new Set(named.map((path) => path.replace(/^file:\/\//, "").replace(/[.:]+$/, ""))),
  ].filter((path) => path !== "/" && existsSync(path));
  if (unseen.length === 0) return "";
  return ` (it could not see ${unseen.slice(0, 3).join(", ")}, which exist on this machine but not in its sandbox: name the folder on its command line or in its cwd, or mark it trusted; see docs/security.md)`;
}

/** A plugin's writable folder: `data/` in its own, where plugins keep what they write. */
export function pluginDataFolder(pluginDir: string): string {
  return join(pluginDir, "data");
}
