/**
 * Plugin packages as operators get them: a fixture folder (test/fixtures/plugin-packages),
 * copied with edits and packed with `npm pack` into a `.tgz`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FIXTURES = new URL("../fixtures/plugin-packages/", import.meta.url).pathname;

export class PluginPackages {
  /** Where the copies and tarballs are written. */
  readonly root = mkdtempSync(join(tmpdir(), "tsumugi-packages-"));
  private count = 0;

  /**
   * Packs the fixture `name`, with `files` written over its own and `version` set in both
   * package.json and plugin.json (`manifest` merged over plugin.json); returns the `.tgz` path.
   */
  pack(
    name: string,
    edits: {
      version?: string;
      files?: Record<string, string>;
      manifest?: Record<string, unknown>;
      /** Files of the fixture left out. */
      without?: string[];
    } = {},
  ): string {
    const copy = join(this.root, `copy-${++this.count}`);
    const dir = join(copy, name);
    cpSync(join(FIXTURES, name), dir, { recursive: true });
    const editJson = (file: string, over: Record<string, unknown>) => {
      const json = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;
      writeFileSync(join(dir, file), JSON.stringify({ ...json, ...over }, null, 2));
    };
    const version = edits.version ? { version: edits.version } : {};
    editJson("package.json", version);
    editJson("plugin.json", { ...version, ...edits.manifest });
    for (const [file, text] of Object.entries(edits.files ?? {})) writeFileSync(join(dir, file), text);
    for (const file of edits.without ?? []) rmSync(join(dir, file));
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", copy], {
      cwd: dir,
      stdio: "ignore",
    });
    const tarball = readdirSync(copy).find((file) => file.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack wrote no tarball for ${name}`);
    return join(copy, tarball);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
