import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

/** Sub-folders of the plugin folders that hold a plugin.json, as absolute paths. Missing folders are skipped. */
export async function discoverPluginFolders(dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    let entries: Array<{ name: string; isDirectory(): boolean }>;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const folder = join(dir, entry.name);
      if (entry.isDirectory() && existsSync(join(folder, "plugin.json"))) found.push(folder);
    }
  }
  return found;
}

/** The plugin folder a changed path belongs to (the first level below one of `dirs`). */
export function pluginFolderOf(path: string, dirs: string[]): string | undefined {
  const absolute = resolve(path);
  for (const dir of dirs) {
    const inside = relative(dir, absolute);
    if (!inside || inside.startsWith("..")) continue;
    return join(dir, inside.split(sep)[0]!);
  }
  return undefined;
}
