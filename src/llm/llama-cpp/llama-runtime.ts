import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LlamaBinding } from "./binding.ts";

/** The one version known to install with prebuilt CPU binaries and load here; newer ones break `npm ci`. */
export const LLAMA_RUNTIME_VERSION = "3.21.1";
const LIBRARY = "node-llama-cpp";

/** node-llama-cpp's prebuilt CPU (and Metal) binary package for each platform it ships. */
const PREBUILT: Record<string, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "darwin-arm64": "mac-arm64-metal",
  "darwin-x64": "mac-x64",
  "win32-x64": "win-x64",
  "win32-arm64": "win-arm64",
};

export class LlamaRuntimeMissingError extends Error {
  override readonly name = "LlamaRuntimeMissingError";
}

/**
 * node-llama-cpp installed on demand into its own folder (under the data directory), so the
 * default `npm install` stays lean: only the library and this platform's prebuilt binary
 * (~80 MB instead of ~730 MB of every GPU build), and no install scripts, which would try to
 * compile llama.cpp when no binary fits.
 */
export class LlamaRuntime {
  private binding: Promise<LlamaBinding> | undefined;

  constructor(readonly dir: string) {}

  /** True when the pinned version is installed in the folder. */
  installed(): boolean {
    const manifest = join(this.libraryDir(), "package.json");
    if (!existsSync(manifest)) return false;
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
    return version === LLAMA_RUNTIME_VERSION;
  }

  /** Imports the library once; a missing runtime is one clear error naming the fix. */
  load(): Promise<LlamaBinding> {
    if (!this.installed()) {
      return Promise.reject(
        new LlamaRuntimeMissingError(
          `the local model runtime (${LIBRARY} ${LLAMA_RUNTIME_VERSION}) is not installed in ${this.dir}: ` +
            'run "npm run model -- runtime" or choose "local model" in the console',
        ),
      );
    }
    this.binding ??= import(
      pathToFileURL(join(this.libraryDir(), "dist", "index.js")).href
    ) as Promise<LlamaBinding>;
    return this.binding;
  }

  /**
   * Installs the pinned library and this platform's prebuilt binary with npm. `onOutput`
   * receives npm's output lines as they come.
   */
  async install(onOutput: (line: string) => void = () => {}, signal?: AbortSignal): Promise<void> {
    const platform = `${process.platform}-${process.arch}`;
    const prebuilt = PREBUILT[platform];
    if (!prebuilt) throw new Error(`${LIBRARY} ships no prebuilt binary for ${platform}`);
    mkdirSync(this.dir, { recursive: true });
    const manifest = join(this.dir, "package.json");
    if (!existsSync(manifest)) {
      writeFileSync(
        manifest,
        `${JSON.stringify({ name: "tsumugi-llama-runtime", private: true }, null, 2)}\n`,
      );
    }
    const args = [
      "install",
      "--save-exact",
      "--omit=optional",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      `${LIBRARY}@${LLAMA_RUNTIME_VERSION}`,
      `@${LIBRARY}/${prebuilt}@${LLAMA_RUNTIME_VERSION}`,
    ];
    onOutput(`npm ${args.join(" ")}`);
    await runNpm(args, this.dir, onOutput, signal);
    if (!this.installed()) throw new Error(`npm finished but ${LIBRARY} is not in ${this.dir}`);
  }

  private libraryDir(): string {
    return join(this.dir, "node_modules", LIBRARY);
  }
}

function runNpm(args: string[], cwd: string, onOutput: (line: string) => void, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    const windows = process.platform === "win32";
    const child = spawn(windows ? "npm.cmd" : "npm", args, { cwd, shell: windows, signal });
    const tail: string[] = [];
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split(/\r?\n/)) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 5) tail.shift();
        onOutput(line);
      }
    };
    child.stdout.on("data", forward);
    child.stderr.on("data", forward);
    child.on("error", (error) => reject(new Error(`could not run npm: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`installing ${LIBRARY} failed (npm exit ${code}): ${tail.join(" | ")}`));
    });
  });
}
