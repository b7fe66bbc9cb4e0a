import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import { repo } from "./source-imports.ts";

/**
 * What a start-up pays for. Compiling a JSON schema costs milliseconds each; compiled when a
 * module is imported or a service is built, they were a third of a start's CPU, mostly for
 * features that were off. Schemas are compiled when first used instead.
 */

/** The first src/ file on the stack of each `Ajv#compile` call made while `run` runs. */
async function compilesDuring(run: () => Promise<unknown>): Promise<string[]> {
  const callers: string[] = [];
  const compile = Ajv.prototype.compile;
  vi.spyOn(Ajv.prototype, "compile").mockImplementation(function (this: Ajv, ...args) {
    const caller = new Error().stack?.split("\n").find((line) => line.includes("/src/"));
    callers.push(caller?.replace(/^.*\/src\//, "src/").replace(/[):].*$/, "") ?? "(not from src/)");
    return compile.apply(this, args);
  });
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return callers;
}

afterEach(() => vi.restoreAllMocks());

describe("start-up cost", () => {
  it("compiles no schema when the modules a start-up loads are imported", async () => {
    const callers = await compilesDuring(async () => {
      await import("../../src/config/load.ts");
      await import("../../src/log/logger.ts");
      await import("../../src/app.ts");
    });
    expect(callers).toEqual([]);
  }, 120_000);

  it("compiles a built-in tool's argument schema at its first call in a chat mode, each of them valid", async () => {
    const { createBuiltinTools } = await import("../../src/agent/builtin-tool-runs.ts");
    const { createPluginAjv } = await import("../../src/plugins/plugin-ajv.ts");
    const { manageTools } = await import("../../src/manage/manage-tools.ts");
    let mode: "planner" | "single" = "planner";
    // Building the tools touches none of the services their runs use.
    const unused = {} as never;
    let tools: ReturnType<typeof createBuiltinTools> = [];
    const atBuild = await compilesDuring(async () => {
      tools = createBuiltinTools({
        ajv: createPluginAjv(),
        mode: () => mode,
        replyStage: unused,
        stickers: unused,
        memory: unused,
        knowledge: { service: unused, settings: unused },
        search: unused,
        reminders: unused,
        media: { voice: unused, images: unused },
        groupTools: manageTools(unused),
      });
    });
    expect(atBuild).toEqual([]);
    expect(tools.length).toBeGreaterThan(5);

    for (const chatMode of ["planner", "single"] as const) {
      mode = chatMode;
      const firstCalls = await compilesDuring(async () => {
        for (const tool of tools) tool.validate({});
      });
      expect(firstCalls).toHaveLength(tools.length);
      const laterCalls = await compilesDuring(async () => {
        for (const tool of tools) tool.validate({});
      });
      expect(laterCalls).toEqual([]);
    }
    const noReply = tools.find((tool) => tool.name === "no_reply")!;
    expect(noReply.validate({ reason: 3 })).toMatch(/reason must be string/);
  }, 60_000);

  it("checks plugins' schemas against the meta-schema with one compiled meta-schema for all plugin loads", async () => {
    const { readManifest } = await import("../../src/plugins/manifest.ts");
    const { createPluginAjv } = await import("../../src/plugins/plugin-ajv.ts");
    const plugins = mkdtempSync(join(tmpdir(), "tsumugi-start-up-cost-"));
    try {
      cpSync(join(repo, "plugins"), plugins, { recursive: true });
      // Ajv compiles a meta-schema in the instance whose validate() first looks it up.
      const metaSchemaHolders = new Set<Ajv>();
      const validate = Ajv.prototype.validate;
      vi.spyOn(Ajv.prototype, "validate").mockImplementation(function (this: Ajv, ...args) {
        const [schema] = args;
        if (typeof schema === "string" && schema.startsWith("http://json-schema.org/")) {
          metaSchemaHolders.add(this);
        }
        return validate.apply(this, args);
      });
      const results = await Promise.all(
        ["clock", "dice", "ping", "voice"].map((name) =>
          readManifest(join(plugins, name), createPluginAjv()),
        ),
      );
      expect(results.map((result) => result.ok)).toEqual([true, true, true, true]);
      expect(metaSchemaHolders.size).toBe(1);
      // A schema Ajv refuses is still refused with Ajv's own message.
      expect(() => createPluginAjv().compile({ type: "object", required: "name" })).toThrow(
        /^schema is invalid: data\/required must be array$/,
      );
    } finally {
      rmSync(plugins, { recursive: true, force: true });
    }
  });
});
