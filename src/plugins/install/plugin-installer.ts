import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Logger } from "../../log/logger.ts";
import { PLUGIN_ID } from "../../schema/formats.ts";
import type { PluginSettings } from "../config.ts";
import { type PluginManifest, readManifest } from "../manifest.ts";
import { createPluginAjv } from "../plugin-ajv.ts";
import { discoverPluginFolders } from "../plugin-discovery.ts";
import { SerialQueue } from "../serial-queue.ts";
import type { PluginStatus } from "../status-types.ts";
import {
  installDependencies,
  installScriptsOf,
  npmSpecOf,
  PluginInstallError,
  packAndUnpack,
  type UnpackedPackage,
  withoutSecrets,
} from "./npm-package.ts";

/** Written into an installed plugin's folder: what it was installed from, so it can be updated and uninstalled. */
export const INSTALL_RECORD = ".tsumugi-install.json";
/** npm's rule for package names (validate-npm-package-name): lower case, URL-safe, at most 214 characters. */
const NPM_PACKAGE_NAME = /^(?=.{1,214}$)(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/**
 * How the plugin's code will run: inside the bot's process (node), in a sandboxed process, or
 * in a process with the bot's own rights (trusted, or the sandbox switched off).
 */
export type LaunchMode = "in-process" | "sandboxed" | "not-sandboxed";

/** What an operator sees before installing: the manifest and what the package asks for. */
export interface PluginPreview {
  spec: string;
  packageName: string;
  id: string;
  name: string;
  version: string;
  description: string;
  runtime: PluginManifest["runtime"];
  entry: string;
  sdk?: string;
  /** Environment variables of the bot it asks to be passed (stdio, python). */
  env: string[];
  /** Whether its process may reach the network (stdio, python). */
  network: boolean;
  launch: LaunchMode;
  /** npm lifecycle scripts the package would run on install (skipped unless scripts are allowed). */
  installScripts: string[];
  /** Its production dependencies, by name. */
  dependencies: string[];
  /** The version installed now, when the plugin is installed already. */
  installedVersion?: string;
  /** The digest of the package's tarball (`sha512-…`): an install expecting it installs exactly this. */
  integrity: string;
}

export interface InstallRecord {
  spec: string;
  packageName: string;
  version: string;
  installedAt: string;
  scriptsAllowed: boolean;
  /** The digest of the tarball installed (records written before it was kept have none). */
  integrity?: string;
}

export interface InstalledPlugin {
  id: string;
  version: string;
  runtime: string;
  dir: string;
  /** Set for plugins installed from a package; others are folders put there by hand. */
  installed?: InstallRecord;
}

export interface InstallOptions {
  /** Run the package's install scripts (npm lifecycle); off by default. */
  allowScripts?: boolean;
  /**
   * What the operator saw in the preview: the install is refused if the package differs —
   * another id or version, or (given the preview's `integrity`) any other content, such as a
   * git repository that got a new commit between the preview and the install.
   */
  expect?: { id: string; version: string; integrity?: string };
}

export interface PluginInstallerDeps {
  settings: () => Pick<PluginSettings, "dirs" | "sandbox" | "trusted">;
  /** Resolves relative specs and plugin folders. */
  cwd: string;
  /** The plugins running now (a running bot's host); their ids cannot be taken by a new install. */
  loaded?: () => PluginStatus[];
  /** Loads, reloads or removes the plugin of a folder at once (a running bot), instead of waiting for its watcher. */
  folderChanged?: (folder: string) => Promise<void>;
  logger?: Logger;
}

/**
 * Installs plugins from npm packages (a registry name, a git URL, a local `.tgz` or folder)
 * into the first plugin folder: fetched with `npm pack`, the manifest checked before anything
 * is installed, dependencies installed with `npm install` (scripts only when allowed), and the
 * folder moved into place in one rename so a running bot never loads half a plugin.
 */
export class PluginInstaller {
  /** One change of the plugin folder at a time; each caller gets its own failure. */
  private readonly changes = new SerialQueue(() => {});

  constructor(private readonly deps: PluginInstallerDeps) {}

  /** Fetches the package and reads its manifest; nothing is installed. */
  async preview(spec: string): Promise<PluginPreview> {
    const temp = await mkdtemp(join(tmpdir(), "tsumugi-plugin-"));
    try {
      return await this.inspect(spec, await packAndUnpack(npmSpecOf(spec, this.deps.cwd), temp));
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }

  install(spec: string, options: InstallOptions = {}): Promise<PluginPreview> {
    return this.changes.run(() => this.put(spec, undefined, options));
  }

  /** Installs the plugin again from `spec` (default: what it was installed from), replacing it. */
  update(id: string, options: InstallOptions & { spec?: string } = {}): Promise<PluginPreview> {
    return this.changes.run(async () => {
      const current = await this.installedRecord(id);
      return this.put(options.spec ?? current.record.spec, current, options);
    });
  }

  /** What a plugin was installed from, credentials and all (`list` shows it without them). */
  async installedFrom(id: string): Promise<string> {
    return (await this.installedRecord(id)).record.spec;
  }

  uninstall(id: string): Promise<void> {
    return this.changes.run(() => this.remove(id));
  }

  private async remove(id: string): Promise<void> {
    const { dir } = await this.installedRecord(id);
    const removing = join(this.installDir(), `.removing-${id}-${randomBytes(4).toString("hex")}`);
    await rename(dir, removing);
    await rm(removing, { recursive: true, force: true });
    await this.deps.folderChanged?.(dir);
    this.deps.logger?.info({ plugin: id }, "plugin uninstalled");
  }

  /** Every plugin folder of `plugins.dirs`, with where installed ones came from. */
  async list(): Promise<InstalledPlugin[]> {
    const folders = await discoverPluginFolders(
      this.deps.settings().dirs.map((dir) => resolve(this.deps.cwd, dir)),
    );
    const ajv = createPluginAjv();
    const plugins: InstalledPlugin[] = [];
    for (const dir of folders) {
      const read = await readManifest(dir, ajv);
      const installed = await readInstallRecord(dir);
      plugins.push({
        id: read.ok ? read.manifest.id : (read.id ?? dir),
        version: read.ok ? read.manifest.version : "?",
        runtime: read.ok ? read.manifest.runtime : "?",
        dir,
        // Shown in the console and printed by `npm run plugin -- list`: without a git URL's token.
        ...(installed && { installed: { ...installed, spec: withoutSecrets(installed.spec) } }),
      });
    }
    return plugins;
  }

  private async put(
    spec: string,
    replacing: { dir: string } | undefined,
    options: InstallOptions,
  ): Promise<PluginPreview> {
    const installDir = this.installDir();
    await mkdir(installDir, { recursive: true });
    // Staged beside its final place (a dot-folder, which the plugin host skips), so moving it there is one rename.
    const staging = join(installDir, `.installing-${randomBytes(6).toString("hex")}`);
    await mkdir(staging);
    try {
      const npmSpec = npmSpecOf(spec, this.deps.cwd);
      const fetched = await packAndUnpack(npmSpec, staging);
      const unpacked = fetched.dir;
      const preview = await this.inspect(spec, fetched);
      const { expect } = options;
      if (expect && (expect.id !== preview.id || expect.version !== preview.version)) {
        throw new PluginInstallError(
          "changed",
          `${spec} is now ${preview.id} ${preview.version}, not the ${expect.id} ${expect.version} previewed`,
        );
      }
      if (expect?.integrity !== undefined && expect.integrity !== preview.integrity) {
        throw new PluginInstallError(
          "changed",
          `${spec} changed since it was previewed (its content is not what was shown: digest ${preview.integrity.slice(0, 19)}…, previewed ${expect.integrity.slice(0, 19)}…); nothing was installed: preview it again`,
        );
      }
      const target = join(installDir, preview.id);
      if (replacing) {
        if (resolve(replacing.dir) !== target)
          throw new PluginInstallError(
            "id_clash",
            `${spec} holds plugin "${preview.id}", not the one being updated`,
          );
      } else {
        this.refuseClash(preview, target);
      }
      const scriptsAllowed = options.allowScripts === true;
      await installDependencies(unpacked, scriptsAllowed);
      const record: InstallRecord = {
        spec: npmSpec,
        packageName: preview.packageName,
        version: preview.version,
        installedAt: new Date().toISOString(),
        scriptsAllowed,
        integrity: preview.integrity,
      };
      await writeInstallRecord(unpacked, record);
      await moveIntoPlace(unpacked, target, replacing ? join(staging, "replaced") : undefined);
      await this.deps.folderChanged?.(target);
      this.deps.logger?.info(
        { plugin: preview.id, version: preview.version, spec: withoutSecrets(npmSpec), scriptsAllowed },
        replacing ? "plugin updated" : "plugin installed",
      );
      return preview;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private refuseClash(preview: PluginPreview, target: string): void {
    if (existsSync(target)) {
      throw new PluginInstallError(
        "id_clash",
        `plugin "${preview.id}" is installed already in ${target} (update it instead)`,
      );
    }
    const running = this.deps.loaded?.().find((plugin) => plugin.id === preview.id);
    if (running) {
      throw new PluginInstallError(
        "id_clash",
        `a plugin with id "${preview.id}" is loaded already from ${running.dir}`,
      );
    }
  }

  private async inspect(spec: string, { dir: unpacked, integrity }: UnpackedPackage): Promise<PluginPreview> {
    if (!existsSync(join(unpacked, "plugin.json"))) {
      throw new PluginInstallError("no_manifest", `${spec} has no plugin.json: it is not a Tsumugi plugin`);
    }
    const read = await readManifest(unpacked, createPluginAjv());
    if (!read.ok) {
      throw new PluginInstallError(
        "invalid_manifest",
        `${spec}: plugin.json is invalid: ${read.problems.join("; ")}`,
      );
    }
    const { manifest } = read;
    const packageJson = JSON.parse(await readFile(join(unpacked, "package.json"), "utf8")) as {
      name?: unknown;
      dependencies?: Record<string, string>;
    };
    const packageName = packageJson.name ?? manifest.id;
    if (typeof packageName !== "string" || !NPM_PACKAGE_NAME.test(packageName)) {
      throw new PluginInstallError(
        "invalid_manifest",
        `${spec}: package.json's name ${JSON.stringify(packageName).slice(0, 80)} is not a valid npm package name`,
      );
    }
    const installed = this.deps.loaded?.().find((plugin) => plugin.id === manifest.id);
    return {
      spec,
      packageName,
      id: manifest.id,
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      runtime: manifest.runtime,
      entry: manifest.entry,
      ...(manifest.sdk !== undefined && { sdk: manifest.sdk }),
      env: manifest.env,
      network: manifest.network,
      launch: this.launchModeOf(manifest),
      installScripts: installScriptsOf(packageJson),
      dependencies: Object.keys(packageJson.dependencies ?? {}),
      ...(installed && { installedVersion: installed.version }),
      integrity,
    };
  }

  private launchModeOf(manifest: PluginManifest): LaunchMode {
    if (manifest.runtime === "node") return "in-process";
    const { sandbox, trusted } = this.deps.settings();
    return sandbox === "off" || trusted.includes(manifest.id) ? "not-sandboxed" : "sandboxed";
  }

  private async installedRecord(id: string): Promise<{ dir: string; record: InstallRecord }> {
    const dir = join(this.installDir(), id);
    const record = PLUGIN_ID.test(id) ? await readInstallRecord(dir) : undefined;
    if (!record) {
      throw new PluginInstallError(
        "not_installed",
        `plugin "${id}" was not installed from a package in ${this.installDir()}; its folder is left alone`,
      );
    }
    return { dir, record };
  }

  /** Packages go into the first of `plugins.dirs`. */
  private installDir(): string {
    const [first] = this.deps.settings().dirs;
    if (!first)
      throw new PluginInstallError(
        "no_plugin_folder",
        "plugins.dirs is empty: there is no folder to install into",
      );
    return resolve(this.deps.cwd, first);
  }
}

/**
 * Renames `from` to `to`; an existing `to` is first moved aside to `aside` (deleted with the
 * staging folder), and moved back if the new version cannot take its place.
 */
async function moveIntoPlace(from: string, to: string, aside: string | undefined): Promise<void> {
  if (aside) await rename(to, aside);
  try {
    await rename(from, to);
  } catch (error) {
    if (aside) await rename(aside, to);
    throw error;
  }
}

/**
 * Writes the record into a package's folder without following a link the package shipped in
 * its place: into a new file (`wx` refuses one that exists, a link included) renamed over it,
 * which replaces a link rather than writing through it.
 */
export async function writeInstallRecord(dir: string, record: InstallRecord): Promise<void> {
  const temp = join(dir, `.tsumugi-install-${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`, { flag: "wx", mode: 0o600 });
  await rename(temp, join(dir, INSTALL_RECORD));
}

async function readInstallRecord(dir: string): Promise<InstallRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, INSTALL_RECORD), "utf8")) as InstallRecord;
  } catch {
    return undefined;
  }
}
