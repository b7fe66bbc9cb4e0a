import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The files a command line needs beyond the system folders, for an isolated process's view:
 * its program's installation and the folders of the files it names by absolute path.
 */

/** The program a command runs: a name is looked up on `path` (PATH), a path with a slash is taken from `cwd`. */
export function findProgram(program: string, path: string | undefined, cwd: string): string | undefined {
  if (program.includes("/")) {
    const file = resolve(cwd, program);
    return isExecutableFile(file) ? file : undefined;
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const file = resolve(dir, program);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/** Folders holding a program's own files beside it (`<prefix>/bin/…`, `~/.pyenv/shims/…`). */
const INSTALL_SUBFOLDERS = new Set(["bin", "sbin", "shims"]);

/**
 * The folders a program needs visible: for the program as found and for the file it links
 * to, its installation prefix when it sits in one (`/opt/node/bin/node` → `/opt/node`, with
 * the `lib/` an interpreter loads from; a pyenv shim → `~/.pyenv`, where the shim's
 * interpreters are), else its own folder. Never `/` or the home folder as a whole.
 */
export function programFolders(program: string): string[] {
  const folders = new Set<string>();
  for (const file of [program, realpathSync(program)]) {
    const folder = dirname(file);
    const prefix = dirname(folder);
    const whole = INSTALL_SUBFOLDERS.has(basename(folder)) && prefix !== "/" && prefix !== homedir();
    folders.add(whole ? prefix : folder);
  }
  return [...folders];
}

/**
 * The folders of the existing files and folders an argument names by absolute path or
 * `file:` URL, alone or as an option's value (`node /opt/mcp/server.mjs`, `--import
 * file:///…/loader.mjs`, `--config=/etc/x.json`): a folder itself,
 * a file's folder. `/` is never one of them.
 */
export function argumentFolders(args: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const arg of args) {
    const path = argumentPath(arg);
    if (!path || !existsSync(path)) continue;
    const folder = statSync(path).isDirectory() ? path : dirname(path);
    if (folder !== "/") folders.add(folder);
    // A file of an installed package (`…/node_modules/<pkg>/dist/index.js`): npm hoists its
    // dependencies into the node_modules above it, where Node looks for them.
    const installed = /^(.*?\/node_modules)\//.exec(path)?.[1];
    if (installed) folders.add(installed);
  }
  return [...folders];
}

/**
 * The `package.json` that governs each folder from further up (Node reads its `type` to load a
 * `.js` or `.ts` file as a module): the nearest one above the folder, when there is one.
 */
export function governingPackageFiles(folders: readonly string[]): string[] {
  const files = new Set<string>();
  for (const folder of folders) {
    for (let above = dirname(folder); ; above = dirname(above)) {
      const file = resolve(above, "package.json");
      if (existsSync(file)) {
        files.add(file);
        break;
      }
      if (above === dirname(above)) break;
    }
  }
  return [...files];
}

function argumentPath(arg: string): string | undefined {
  // An option's value: `--import=/…/loader.mjs`.
  if (arg.startsWith("-") && arg.includes("=")) return argumentPath(arg.slice(arg.indexOf("=") + 1));
  if (arg.startsWith("file:")) {
    try {
      return fileURLToPath(arg);
    } catch {
      return undefined;
    }
  }
  return isAbsolute(arg) ? resolve(arg) : undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
