import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverPluginFolders, pluginFolderOf } from "../../src/plugins/plugin-discovery.ts";

describe("plugin folder discovery", () => {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-discovery-"));
  const elsewhere = mkdtempSync(join(tmpdir(), "tsumugi-linked-plugin-"));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });
  const plugin = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "plugin.json"), "{}");
  };

  it("finds plugin folders and linked ones, and skips hidden ones (a package being installed)", async () => {
    plugin(join(root, "ping"));
    plugin(join(root, ".installing-3f2a"));
    plugin(elsewhere);
    symlinkSync(elsewhere, join(root, "linked"), "dir");
    expect(await discoverPluginFolders([root])).toEqual([join(root, "linked"), join(root, "ping")]);
  });

  it("reports no plugin for a change inside a hidden folder", () => {
    expect(pluginFolderOf(join(root, "ping", "index.ts"), [root])).toBe(join(root, "ping"));
    expect(pluginFolderOf(join(root, ".installing-3f2a", "plugin.json"), [root])).toBeUndefined();
  });
});
