import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { basename, isAbsolute, join, resolve } from "node:path";
import { extract, type ReadEntry } from "tar";

/** A package fetched by `npm pack`: larger tarballs are refused before they are unpacked. */
export const MAX_TARBALL_BYTES = 20 * 1024 * 1024;
/** What the unpacked package may take (npm's own count of its files). */
export const MAX_UNPACKED_BYTES = 100 * 1024 * 1024;
const PACK_TIMEOUT_MS = 120_000;
const INSTALL_TIMEOUT_MS = 300_000;
/** npm's lifecycle scripts that `npm install` runs in the package's own folder. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/** What went wrong installing a plugin package, said so an operator knows what to do. */
export class PluginInstallError extends Error {
  constructor(
    readonly code:
      | "pack_failed"
      | "too_large"
      | "unsafe_package"
      | "no_manifest"
      | "invalid_manifest"
      | "id_clash"
      | "not_installed"
      | "changed"
      | "npm_install_failed"
      | "no_plugin_folder",
    message: string,
  ) {
    // The spec and npm's own lines may carry a git URL's token: never in a message.
    super(withoutSecrets(message));
  }
}

/**
 * A spec (or a message naming one) with its credentials replaced by `***`: the user and
 * password of a URL (`git+https://user:TOKEN@host/…`) and an npm `_auth`/`_authToken` value.
 */
export function withoutSecrets(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1***@")
    .replace(/(_auth(?:Token)?\s*=\s*)\S+/g, "$1***");
}

/**
 * What npm gets for an operator's spec: a path that exists (a `.tgz` or a folder) is made
 * absolute, since npm runs in a temp folder; anything else (a package name, `name@range`, a
 * git URL) goes to npm as it is, so the operator's npm settings pick the registry.
 */
export function npmSpecOf(spec: string, cwd: string): string {
  const trimmed = spec.trim();
  if (trimmed.startsWith("file:")) return `file:${resolve(cwd, trimmed.slice(5))}`;
  const asPath = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
  const looksLikePath = /^[.~/]/.test(trimmed) || /\.(tgz|tar\.gz)$/.test(trimmed);
  return looksLikePath && existsSync(asPath) ? asPath : trimmed;
}

/** A package fetched and unpacked. */
export interface UnpackedPackage {
  /** Its folder. */
  dir: string;
  /**
   * The digest of its tarball (`sha512-…`, npm's integrity): the same commit of a git
   * repository, the same registry version or the same file packs to the same digest.
   */
  integrity: string;
}

/**
 * Fetches a package as a tarball into `folder` with `npm pack` (registry, git and local
 * specs alike; no script of the package runs) and unpacks it into `<folder>/package`.
 */
export async function packAndUnpack(spec: string, folder: string): Promise<UnpackedPackage> {
  const output = await run(
    "npm",
    ["pack", spec, "--json", "--ignore-scripts", "--pack-destination", folder],
    folder,
    PACK_TIMEOUT_MS,
  ).catch((error: Error) => {
    throw new PluginInstallError("pack_failed", `npm pack ${spec} failed: ${error.message}`);
  });
  const packed = parsePackOutput(output, spec);
  const tarball = join(folder, packed.filename);
  const size = (await stat(tarball)).size;
  if (size > MAX_TARBALL_BYTES || packed.unpackedSize > MAX_UNPACKED_BYTES) {
    throw new PluginInstallError(
      "too_large",
      `${spec} is too large (${mb(size)} packed, ${mb(packed.unpackedSize)} unpacked; at most ${mb(MAX_TARBALL_BYTES)} and ${mb(MAX_UNPACKED_BYTES)})`,
    );
  }
  const unpacked = join(folder, "unpacked");
  await mkdir(unpacked);
  await unpackPlain(tarball, unpacked, spec);
  // npm's tarballs hold one top folder, "package" for nearly all of them.
  const [top] = await readdir(unpacked);
  if (!top) throw new PluginInstallError("pack_failed", `${spec} is an empty package`);
  return { dir: join(unpacked, top), integrity: packed.integrity };
}

/** What a package may hold: regular files and folders (no links, devices or FIFOs). */
const PLAIN_ENTRIES = new Set<string>(["File", "OldFile", "ContiguousFile", "Directory"]);

/**
 * A package's files left out when it is unpacked: npm's and yarn's settings, which `npm
 * install` in its folder would obey (a `git=` pointing at a script runs it), and installed
 * dependencies, which are installed fresh.
 */
function isLeftOut(path: string): boolean {
  const parts = path.split("/");
  const name = basename(path);
  return parts.includes("node_modules") || name === ".npmrc" || name.startsWith(".yarnrc");
}

/**
 * Unpacks a tarball into `folder`, regular files and folders only, owned by the bot's user,
 * no set-id bits: a link, hardlink, device or FIFO refuses the package, and so does more than
 * MAX_UNPACKED_BYTES of content. node-tar never writes outside `folder` (no `..`, no absolute paths).
 */
async function unpackPlain(tarball: string, folder: string, spec: string): Promise<void> {
  let refused: string | undefined;
  let bytes = 0;
  try {
    await extract({
      file: tarball,
      cwd: folder,
      strict: true,
      preserveOwner: false,
      filter: (path, entry) => {
        const { type, size } = entry as ReadEntry;
        if (!PLAIN_ENTRIES.has(type)) refused ??= `${path} (${type})`;
        bytes += size;
        return refused === undefined && bytes <= MAX_UNPACKED_BYTES && !isLeftOut(path);
      },
      onReadEntry: (entry) => {
        // rw for the owner, r for others, x where it was: no set-id or sticky bits.
        if (entry.mode !== undefined) entry.mode &= 0o755;
      },
    });
  } catch (error) {
    throw new PluginInstallError("pack_failed", `${spec} could not be unpacked: ${(error as Error).message}`);
  }
  if (refused) {
    throw new PluginInstallError(
      "unsafe_package",
      `${spec} holds ${refused}: a plugin package may hold only regular files and folders`,
    );
  }
  if (bytes > MAX_UNPACKED_BYTES) {
    throw new PluginInstallError("too_large", `${spec} unpacks to more than ${mb(MAX_UNPACKED_BYTES)}`);
  }
}

/** The install lifecycle scripts a package.json declares (npm would run them on install). */
export function installScriptsOf(packageJson: unknown): string[] {
  const scripts = (packageJson as { scripts?: unknown })?.scripts;
  if (typeof scripts !== "object" || scripts === null) return [];
  return INSTALL_SCRIPTS.filter((name) => typeof (scripts as Record<string, unknown>)[name] === "string");
}

/**
 * `npm install` of a package's production dependencies in its folder; its own scripts only
 * when allowed. The package chose these dependencies, so npm gets none of the settings files
 * (the package's own were left out; the user's and global ones are replaced by an empty file):
 * git is `git`, scripts run in the default shell. The bot's `npm_config_*` variables still apply.
 */
export async function installDependencies(folder: string, allowScripts: boolean): Promise<void> {
  const noSettings = join(folder, "..", "empty-npmrc");
  await writeFile(noSettings, "");
  const args = [
    "install",
    "--omit=dev",
    "--no-audit",
    "--no-fund",
    "--no-package-lock",
    "--git=git",
    `--userconfig=${noSettings}`,
    `--globalconfig=${noSettings}`,
  ];
  if (!allowScripts) args.push("--ignore-scripts");
  await run("npm", args, folder, INSTALL_TIMEOUT_MS).catch((error: Error) => {
    throw new PluginInstallError("npm_install_failed", `npm install failed: ${error.message}`);
  });
}

interface PackedFile {
  filename: string;
  unpackedSize: number;
  integrity: string;
}

function parsePackOutput(output: string, spec: string): PackedFile {
  try {
    const [packed] = JSON.parse(output) as Array<Partial<PackedFile>>;
    if (typeof packed?.filename === "string" && typeof packed.integrity === "string") {
      // npm names a scoped package's tarball "scope-name-1.0.0.tgz" but reports "@scope/name-1.0.0.tgz".
      const filename = packed.filename.replace(/^@/, "").replace("/", "-");
      return { filename, unpackedSize: packed.unpackedSize ?? 0, integrity: packed.integrity };
    }
  } catch {
    // reported below
  }
  throw new PluginInstallError("pack_failed", `npm pack ${spec} did not say which file it wrote`);
}

/** Runs a program (no shell); rejects with npm's own error lines, or the last lines of stderr. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: "false" },
      },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        if (error.killed) return reject(new Error(`timed out after ${timeoutMs / 1000} s`));
        const lines = stderr.split("\n").filter((line) => line.trim());
        const npmErrors = lines.filter((line) => /^npm (error|ERR!)/.test(line));
        const shown = (npmErrors.length > 0 ? npmErrors : lines).slice(0, 4);
        reject(new Error(shown.join(" / ") || error.message));
      },
    );
  });
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
