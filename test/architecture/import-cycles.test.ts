import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importedFiles, repo, sourceFiles } from "./source-imports.ts";

/**
 * No file of src/ reaches itself through its imports, type-only ones included: a cycle makes
 * the files in it one unit that can be read, tested and loaded only together.
 */

/** Each file's imports among the files given (imports of anything else are left out). */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) {
    graph.set(
      path,
      importedFiles(path, text).filter((target) => files.has(target)),
    );
  }
  return graph;
}

/** The groups of files that import each other in a ring (Tarjan's strongly connected components). */
function ringsOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const rings: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(target) as number));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const ring: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      ring.push(member);
    } while (member !== file);
    if (ring.length > 1 || graph.get(file)?.includes(file)) rings.push(ring);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return rings;
}

/** One cycle through each ring, from its first file by name back to it: `a.ts → b.ts → a.ts`. */
function importCycles(files: Map<string, string>): string[] {
  const graph = importGraph(files);
  return ringsOf(graph)
    .map((ring) => {
      const members = new Set(ring);
      const [start] = [...ring].sort() as [string];
      // Shortest way back to the start within the ring, breadth first.
      const cameFrom = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0) {
        const file = queue.shift() as string;
        const next = (graph.get(file) ?? []).filter((target) => members.has(target));
        if (next.includes(start)) {
          const path = [file];
          for (let step = file; step !== start; ) {
            step = cameFrom.get(step) as string;
            path.unshift(step);
          }
          return [...path, start].join(" → ");
        }
        for (const target of next) {
          if (target !== start && !cameFrom.has(target)) {
            cameFrom.set(target, file);
            queue.push(target);
          }
        }
      }
      return `${start} → ${start}`;
    })
    .sort();
}

describe("imports between the files of src/", () => {
  it("form no cycle, type-only imports included", () => {
    expect(importCycles(sourceFiles(join(repo, "src")))).toEqual([]);
  });

  it("lists each cycle once, by its files in import order", () => {
    const files = new Map([
      ["memory/service.ts", 'import { recall } from "../agent/recall.ts";'],
      ["agent/recall.ts", 'import type { MemoryService } from "../memory/service.ts";'],
      ["store/open.ts", 'import { assemble } from "./assemble.ts";\nimport { fs } from "node:fs";'],
      ["store/assemble.ts", 'import { openPostgres } from "./postgres.ts";'],
      ["store/postgres.ts", 'export type { Store } from "./open.ts";'],
      ["store/types.ts", 'import type { Row } from "./types.ts";'],
      ["chat/ingest.ts", 'import { open } from "../store/open.ts";'],
    ]);
    expect(importCycles(files)).toEqual([
      "agent/recall.ts → memory/service.ts → agent/recall.ts",
      "store/assemble.ts → store/postgres.ts → store/open.ts → store/assemble.ts",
      "store/types.ts → store/types.ts",
    ]);
  });
});
