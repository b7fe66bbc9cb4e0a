import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";

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
      | "no_manifest"
      | "invalid_manifest"
      | "id_clash"
      | "not_installed"
      | "changed"
      | "npm_install_failed"
      | "no_plugin_folder",
    message: string,
  ) {
    super(message);
  }
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

/**
 * Fetches a package as a tarball into `folder` with `npm pack` (registry, git and local
 * specs alike; no script of the package runs) and unpacks it into `<folder>/package`.
 */
export async function packAndUnpack(spec: string, folder: string): Promise<string> {
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
  await run("tar", ["-xzf", tarball, "-C", unpacked, "--no-same-owner"], folder, PACK_TIMEOUT_MS).catch(
    (error: Error) => {
      throw new PluginInstallError("pack_failed", `${spec} could not be unpacked: ${error.message}`);
    },
  );
  // npm's tarballs hold one top folder, "package" for nearly all of them.
  const [top] = await readdir(unpacked);
  if (!top) throw new PluginInstallError("pack_failed", `${spec} is an empty package`);
  return join(unpacked, top);
}

/** The install lifecycle scripts a package.json declares (npm would run them on install). */
export function installScriptsOf(packageJson: unknown): string[] {
  const scripts = (packageJson as { scripts?: unknown })?.scripts;
  if (typeof scripts !== "object" || scripts === null) return [];
  return INSTALL_SCRIPTS.filter((name) => typeof (scripts as Record<string, unknown>)[name] === "string");
}

/** `npm install` of a package's production dependencies in its folder; its own scripts only when allowed. */
export async function installDependencies(folder: string, allowScripts: boolean): Promise<void> {
  const args = ["install", "--omit=dev", "--no-audit", "--no-fund", "--no-package-lock"];
  if (!allowScripts) args.push("--ignore-scripts");
  await run("npm", args, folder, INSTALL_TIMEOUT_MS).catch((error: Error) => {
    throw new PluginInstallError("npm_install_failed", `npm install failed: ${error.message}`);
  });
}

interface PackedFile {
  filename: string;
  unpackedSize: number;
}

function parsePackOutput(output: string, spec: string): PackedFile {
  try {
    const [packed] = JSON.parse(output) as Array<Partial<PackedFile>>;
    if (typeof packed?.filename === "string") {
      // npm names a scoped package's tarball "scope-name-1.0.0.tgz" but reports "@scope/name-1.0.0.tgz".
      const filename = packed.filename.replace(/^@/, "").replace("/", "-");
      return { filename, unpackedSize: packed.unpackedSize ?? 0 };
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
