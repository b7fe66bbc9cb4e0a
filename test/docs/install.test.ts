// `npm install` on a fresh clone leaves `git status` clean and warns of no engine (issue 42): the
// committed lockfile's root entry is what npm would write for package.json (else npm rewrites it
// on install: a `bin` once went missing that way), and every package the lockfile installs
// admits the lowest Node version of each range `engines` admits, and the Node running now.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));

interface LockedPackage {
  version: string;
  engines?: { node?: string };
  optional?: boolean;
}

describe("a fresh install", () => {
  it("finds the lockfile in step with package.json, so npm does not rewrite it", () => {
    const root = lock.packages[""];
    expect(lock.name).toBe(manifest.name);
    expect(root).toMatchObject({ name: manifest.name, version: manifest.version, license: manifest.license });
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
    expect(root.engines).toEqual(manifest.engines);
    expect(root.bin).toEqual(
      Object.fromEntries(
        Object.entries(manifest.bin).map(([name, path]) => [name, String(path).replace(/^\.\//, "")]),
      ),
    );
    for (const [name, version] of Object.entries(manifest.overrides ?? {})) {
      const installed = Object.entries(lock.packages as Record<string, LockedPackage>).filter(([path]) =>
        path.endsWith(`node_modules/${name}`),
      );
      expect(installed.map(([, entry]) => entry.version)).toEqual(installed.map(() => version));
    }
  });

  it("installs nothing whose engines refuse a Node version package.json admits", () => {
    const lowest = manifest.engines.node
      .split("||")
      .map((range: string) => semver.minVersion(range.trim())!.version);
    expect(lowest).toEqual(["20.19.0", "22.12.0"]);
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
    const refusing = Object.entries(lock.packages as Record<string, LockedPackage>).flatMap(
      ([path, entry]) => {
        const range = entry.engines?.node;
        // Optional ones are platforms' prebuilt binaries and their helpers (sharp's for win32-ia32,
        // rolldown's for wasm32): installed only on that platform, never blocking an install.
        if (!path || typeof range !== "string" || entry.optional) return [];
        return [...lowest, process.versions.node]
          .filter((version) => !semver.satisfies(version, range))
          .map(
            (version) =>
              `${path.replace(/^.*node_modules\//, "")}@${entry.version} needs node ${range}, not ${version}`,
          );
      },
    );
    expect(refusing).toEqual([]);
  });
});
