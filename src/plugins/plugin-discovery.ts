import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

/**
 * Sub-folders of the plugin folders that hold a plugin.json, as absolute paths. Missing folders
 * are skipped, and so are hidden ones (a plugin being installed is staged in one). A symbolic
 * link to a folder counts as a folder (a plugin linked in while it is written).
 */
export async function discoverPluginFolders(dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    let entries: Array<{ name: string; isDirectory(): boolean; isSymbolicLink(): boolean }>;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const folder = join(dir, entry.name);
      if (entry.name.startsWith(".") || !existsSync(join(folder, "plugin.json"))) continue;
      if (entry.isDirectory() || (entry.isSymbolicLink() && statSync(folder).isDirectory()))
        found.push(folder);
    }
  }
  return found;
}

/** The plugin folder a changed path belongs to (the first level below one of `dirs`, not a hidden one). */
export function pluginFolderOf(path: string, dirs: string[]): string | undefined {
  const absolute = resolve(path);
  for (const dir of dirs) {
    const inside = relative(dir, absolute);
    if (!inside || inside.startsWith("..")) continue;
    const folder = inside.split(sep)[0]!;
    return folder.startsWith(".") ? undefined : join(dir, folder);
  }
  return undefined;
}
