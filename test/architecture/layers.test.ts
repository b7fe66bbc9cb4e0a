import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importedFiles, repo, sourceFiles } from "./source-imports.ts";

/**
 * The rule of docs/architecture.md: a folder of src/ imports only from its own layer or lower
 * ones, and adapters' internals are private to adapters/. The order is read from the doc's
 * `layers` block, the one place it is written.
 */

function layerOrder(): string[] {
  const doc = readFileSync(join(repo, "docs/architecture.md"), "utf8");
  const block = /```layers\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error("docs/architecture.md has no ```layers block");
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** `app/wiring.ts` and `app.ts` are both the layer `app`. */
function layerOf(path: string): string {
  const [first = path] = path.split("/");
  return first === path ? path.replace(/\.[cm]?[jt]s$/, "") : first;
}

/** What outside adapters/ may import: the shared types and config, each adapter's entry file and config fragment. */
function isAdapterPublic(path: string): boolean {
  return (
    path === "adapters/types.ts" ||
    path === "adapters/config.ts" ||
    /^adapters\/([^/]+)\/\1-adapter\.ts$/.test(path) ||
    /^adapters\/[^/]+\/config\.ts$/.test(path)
  );
}

/** One line per offending import, `file → target (why)`; files outside every layer once each. */
function layerViolations(files: Map<string, string>, order: string[]): string[] {
  const violations: string[] = [];
  for (const [path, text] of files) {
    const from = layerOf(path);
    if (!order.includes(from)) {
      violations.push(`${path}: "${from}" is in no layer of docs/architecture.md`);
      continue;
    }
    for (const target of importedFiles(path, text)) {
      const to = layerOf(target);
      if (to !== from && order.indexOf(to) > order.indexOf(from)) {
        violations.push(`${path} → ${target} (${from} may not import ${to}, a higher layer)`);
      } else if (to !== from && !order.includes(to)) {
        violations.push(`${path} → ${target} ("${to}" is in no layer)`);
      }
      if (to === "adapters" && from !== "adapters" && !isAdapterPublic(target)) {
        violations.push(`${path} → ${target} (adapters' internals are private to adapters/)`);
      }
    }
  }
  return violations;
}

describe("the layers of src/ (docs/architecture.md)", () => {
  it("has every import point to its own layer or a lower one, and none into adapters' internals", () => {
    expect(layerViolations(sourceFiles(join(repo, "src")), layerOrder())).toEqual([]);
  });

  it("reports each form of import that breaks the rule, naming file and target", () => {
    const order = ["message", "adapters", "chat", "app"];
    const files = new Map([
      ["message/inbound.ts", 'import type { ChatType } from "../chat/session-id.ts";'],
      ["message/render.ts", 'export { clip } from "../chat/clip.ts";'],
      ["message/lazy.ts", 'const chat = await import("../chat/chat-service.ts");'],
      ["message/typed.ts", 'let service: import("../chat/chat-service.ts").ChatService;'],
      ["chat/fetcher.ts", 'import { toWireId } from "../adapters/onebot/wire-values.ts";'],
      ["chat/console.ts", 'import { CONSOLE_PLATFORM } from "../adapters/console/console-adapter.ts";'],
      ["chat/types.ts", 'import type { ChatAdapter } from "../adapters/types.ts";'],
      ["app.ts", 'import { ChatService } from "./chat/chat-service.ts";'],
      ["memory/recall.ts", 'import { render } from "../message/render.ts";'],
    ]);
    expect(layerViolations(files, order)).toEqual([
      "message/inbound.ts → chat/session-id.ts (message may not import chat, a higher layer)",
      "message/render.ts → chat/clip.ts (message may not import chat, a higher layer)",
      "message/lazy.ts → chat/chat-service.ts (message may not import chat, a higher layer)",
      "message/typed.ts → chat/chat-service.ts (message may not import chat, a higher layer)",
      "chat/fetcher.ts → adapters/onebot/wire-values.ts (adapters' internals are private to adapters/)",
      'memory/recall.ts: "memory" is in no layer of docs/architecture.md',
    ]);
  });
});
