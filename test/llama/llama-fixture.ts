/**
 * What the llama tests share: the node-llama-cpp runtime that `.ci/run` (or
 * `npm run model -- runtime`) installed into the checkout's data directory, and a folder
 * with a freshly generated tiny model.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { LlamaRuntime } from "../../src/llm/llama-cpp/llama-runtime.ts";
import { writeTinyGguf } from "../support/tiny-gguf.ts";

export const RUNTIME_DIR = resolve("data", "runtime");

export function installedRuntime(): LlamaRuntime {
  const runtime = new LlamaRuntime(RUNTIME_DIR);
  if (!runtime.installed()) {
    throw new Error(
      `node-llama-cpp is not installed in ${RUNTIME_DIR}: run "npm run model -- runtime" first`,
    );
  }
  return runtime;
}

export interface TinyModelFolder {
  /** The generated GGUF: favours "r" then "n", so under the planner's grammar it calls `reply`. */
  modelPath: string;
  /** A data directory whose `runtime/` links to the installed runtime. */
  dataDir: string;
  remove(): void;
}

export function tinyModelFolder(): TinyModelFolder {
  installedRuntime();
  const dir = mkdtempSync(join(tmpdir(), "tsumugi-llama-"));
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { favour: "rn" });
  const dataDir = join(dir, "data");
  mkdirSync(dataDir);
  symlinkSync(RUNTIME_DIR, join(dataDir, "runtime"), "dir");
  return { modelPath, dataDir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
