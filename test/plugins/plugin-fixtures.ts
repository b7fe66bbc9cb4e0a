/**
 * Plugin folders written on the fly into a temp folder outside the repository, so every
 * test also proves that plugins anywhere on disk can `import … from "tsumugi/sdk"`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface PluginFolder {
  id: string;
  dir: string;
  /** Rewrites (or adds) a file of the plugin. */
  write(file: string, text: string): void;
}

export class PluginSandbox {
  /** The folder to list in `plugins.dirs`. */
  readonly root = mkdtempSync(join(tmpdir(), "tsumugi-plugins-"));

  /** Writes a plugin folder: plugin.json (defaults filled, `manifest` merged over) and files. */
  add(id: string, files: Record<string, string>, manifest: Record<string, unknown> = {}): PluginFolder {
    const dir = join(this.root, id);
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write(
      "plugin.json",
      JSON.stringify(
        { id, version: "1.0.0", runtime: "node", entry: "index.ts", sdk: "^1.0.0", ...manifest },
        null,
        2,
      ),
    );
    for (const [file, text] of Object.entries(files)) write(file, text);
    return { id, dir, write };
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A class-style plugin whose entry is `body` placed inside `export default class … extends Plugin`. */
export function classPlugin(body: string, imports = "Plugin, Tool"): string {
  return `import { ${imports} } from "tsumugi/sdk";\n\nexport default class TestPlugin extends Plugin {\n${body}\n}\n`;
}
