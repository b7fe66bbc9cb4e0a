import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repo } from "./source-imports.ts";

/**
 * The suite's files share their workers' modules (vitest.config.ts, `isolate: false`): a file
 * that replaced a module, a global or an environment variable would change them for every file
 * run after it in the same worker, and their failures would depend on the order of the run.
 */
const LEAKS_INTO_OTHER_FILES = [
  /\bvi\.(mock|doMock|stubGlobal|stubEnv|unstubAllGlobals|resetModules)\(/,
  /\bprocess\.env\.[A-Za-z_]+\s*=[^=]/,
  /\bdelete process\.env\./,
];

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("test files sharing a worker", () => {
  it("replace no module, global or environment variable", () => {
    // This file names the patterns it looks for; it is left out.
    const self = new URL(import.meta.url).pathname;
    const offending = testFiles(join(repo, "test"))
      .filter((path) => path !== self)
      .flatMap((path) => {
        const text = readFileSync(path, "utf8");
        return LEAKS_INTO_OTHER_FILES.filter((pattern) => pattern.test(text)).map(
          (pattern) => `${relative(repo, path)}: ${pattern}`,
        );
      });
    expect(offending).toEqual([]);
  });
});
