/** Python SDK plugins for the tests: reference plugins' Python as printed, and the repository's examples. */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PluginFolder, PluginSandbox } from "../plugins/plugin-fixtures.ts";

export { PluginSandbox } from "../plugins/plugin-fixtures.ts";
export { copyExample } from "../stdio/stdio-fixtures.ts";

/** The reference voice reply and gold vault plugins' Python, byte for byte (nothing formats .py here). */
export const REFERENCE_PLUGINS = fileURLToPath(new URL("./reference-plugins/", import.meta.url));

/**
 * SHA-256 of each block exactly as its reference prints it (its lines, each ending in "\n"):
 * `voice_plugin.py` is the reply extensions' 完整示例：语音回复; `gold_vault/` is
 * the function-declaration walkthrough's 第二步 (`__init__.py`) and 第三步 (`service.py`).
 */
export const REFERENCE_SHA256 = {
  "voice_plugin.py": "7da6af4cb59eecb4ffeed8b5c2ceab44dc1cc39aa747138a9db6606cdae07166",
  "gold_vault/__init__.py": "311f79f484a4d821dbdd20879f732cd4208ad74cedf263b452af4b836b2e3e6f",
  "gold_vault/service.py": "9808775c1fd195e3f2255f7fbc6be91489e73ee344634f18b2f22fe7e3f4e126",
};

/** A `runtime: "python"` plugin folder holding `files`. */
export function pythonPlugin(
  sandbox: PluginSandbox,
  id: string,
  files: Record<string, string>,
  manifest: Record<string, unknown> = {},
): PluginFolder {
  return sandbox.add(id, files, { runtime: "python", entry: "plugin.py", ...manifest });
}

/** Copies reference plugin files (paths relative to reference-plugins/) into a plugin folder. */
export function copyReference(folder: PluginFolder, from: string, to = from): void {
  cpSync(join(REFERENCE_PLUGINS, from), join(folder.dir, to), { recursive: true });
}
