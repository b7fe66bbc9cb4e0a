import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";

const EXAMPLE = join(import.meta.dirname, "../../tsumugi.example.yaml");

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsumugi-example-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Uncomments the run of `  # ` lines from the first one starting with `firstLine`, the way a
 * user enables one of the commented examples.
 */
function uncommentBlock(lines: string[], firstLine: string): string[] {
  const start = lines.findIndex((line) => line.startsWith(firstLine));
  expect(start, `example block "${firstLine}"`).toBeGreaterThanOrEqual(0);
  const result = [...lines];
  for (let index = start; index < result.length && result[index]!.startsWith("  # "); index++) {
    result[index] = `  ${result[index]!.slice(4)}`;
  }
  return result;
}

describe("tsumugi.example.yaml", () => {
  it("holds exactly the defaults", () => {
    const fromExample = loadConfig({ file: EXAMPLE, env: {}, cwd: dir }).config;
    const defaults = loadConfig({ env: {}, cwd: dir }).config;
    expect(fromExample).toEqual(defaults);
  });

  it("has commented examples of every provider type and adapter mode that load once enabled", () => {
    let lines = readFileSync(EXAMPLE, "utf8").split("\n");
    lines = uncommentBlock(lines, "  # - type: onebot");
    lines = uncommentBlock(lines, "  # providers:");
    lines = lines.filter((line) => !line.startsWith("  providers: []"));
    const file = join(dir, "tsumugi.yaml");
    writeFileSync(file, lines.join("\n"));

    const { config } = loadConfig({ file, env: { DEEPSEEK_API_KEY: "sk-x", QQBOT_SECRET: "s" }, cwd: dir });
    expect(
      config.adapters.map((adapter) => (adapter.type === "onebot" ? adapter.mode : adapter.type)),
    ).toEqual(["reverse-ws", "forward-ws", "http", "qq-official"]);
    expect(config.llm.providers.map((provider) => provider.type)).toEqual([
      "openai-compatible",
      "openai",
      "gemini",
      "anthropic",
      "llama-cpp",
      "gpt-sovits",
      "edge-tts",
    ]);
    expect(config.llm.providers[0]).toMatchObject({ apiKey: "sk-x" });
  });
});
