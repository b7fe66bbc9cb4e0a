import { projectPath } from "../../util/project-files.ts";
import type { PluginManifest } from "../manifest.ts";
import { commandLine } from "./supervision.ts";

/** The process a plugin runs as: its command line and what its environment gets besides the basics. */
export interface Launched {
  command: string[];
  env: Record<string, string>;
}

export type Launch = (manifest: PluginManifest) => Launched;

/** The Python SDK shipped in this repository (`tsumugi_sdk`, `maibot_sdk`), put on the plugin's import path. */
export const PYTHON_SDK_DIR = projectPath("sdk", "python");

/** `runtime: "stdio"`: `entry` is the command line. */
export const stdioLaunch: Launch = (manifest) => ({ command: commandLine(manifest.entry), env: {} });

/**
 * `runtime: "python"`: `entry` is the plugin's module file or package folder, which the SDK's
 * runner imports and speaks the stdio protocol for; no `pip install` is needed.
 */
export const pythonLaunch: Launch = (manifest) => ({
  command: [process.platform === "win32" ? "python" : "python3", "-m", "tsumugi_sdk.runner", manifest.entry],
  env: { PYTHONPATH: PYTHON_SDK_DIR },
});
