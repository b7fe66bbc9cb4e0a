// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the instance id is kept as written, a ${VAR} reference.
/**
 * A config saved on another instance's console, adopted here (issue 20): written over this
 * instance's config file with its own instance id kept, or applied when it has no file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { adoptConfigText } from "../../src/app/cluster-config.ts";
import type { TsumugiConfig } from "../../src/config/schema.ts";
import { LogCapture } from "../support/log-capture.ts";

const SAVED_ON_B = [
  "bot:",
  "  name: 紬二号",
  "storage:",
  "  url: postgres://tsumugi@10.0.0.4/tsumugi",
  "cluster:",
  "  redisUrl: redis://127.0.0.1:6379",
  "  instanceId: b",
  "",
].join("\n");

let folder: string;
let logs: LogCapture;
let applied: TsumugiConfig[];
const target = (file: string | undefined) => ({
  file,
  env: { INSTANCE: "a" },
  apply: (next: TsumugiConfig) => applied.push(next),
  logger: logs.logger(),
});

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "tsumugi-adopt-"));
  logs = new LogCapture();
  applied = [];
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

it("writes the saved text over the config file, keeping this instance's id as written there", () => {
  const file = join(folder, "tsumugi.yaml");
  writeFileSync(file, SAVED_ON_B.replace("紬二号", "紬").replace("instanceId: b", "instanceId: ${INSTANCE}"));

  adoptConfigText(SAVED_ON_B, target(file));

  const written = readFileSync(file, "utf8");
  expect(written).toContain("name: 紬二号");
  expect(written).toContain("instanceId: ${INSTANCE}");
  expect(written).not.toContain("instanceId: b");
  // The file watcher applies it, as any edit of the file.
  expect(applied).toEqual([]);
});

it("applies the saved text at once when the instance runs without a config file", () => {
  adoptConfigText(SAVED_ON_B, target(undefined));

  expect(applied.map((config) => config.bot.name)).toEqual(["紬二号"]);
});

it("keeps the config in force when the saved text does not load here", () => {
  adoptConfigText("bot:\n  name: 紬\nchat:\n  timezone: Not/A_Zone\n", target(undefined));

  expect(applied).toEqual([]);
  const warning = logs.lines.find((line) => line.msg?.toString().includes("not applied here"));
  expect(JSON.stringify(warning?.problems)).toContain("chat.timezone");
});
