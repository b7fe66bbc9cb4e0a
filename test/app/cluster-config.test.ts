// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the instance id is kept as written, a ${VAR} reference.
/**
 * A config saved on another instance's console, adopted here (issues 20 and 27): handed over
 * as an edit in the console's form (the secrets it kept hidden) and saved over this instance's
 * config file through exactly the console's checks, with this instance's own id and secrets.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { consoleSecretsSchema } from "../../src/api/config-secrets.ts";
import { adoptConfigEdit, shareConfigEdits } from "../../src/app/cluster-config.ts";
import type { TsumugiConfig } from "../../src/config/schema.ts";
import { LogCapture } from "../support/log-capture.ts";

const KEY = "sk-this-instance-key";
const FILE_OF_A = [
  "bot:",
  "  name: 紬",
  "llm:",
  "  providers:",
  "    - id: main",
  "      type: openai-compatible",
  "      baseUrl: http://127.0.0.1:9/v1",
  `      apiKey: ${KEY}`,
  "storage:",
  "  url: postgres://tsumugi@10.0.0.4/tsumugi",
  "cluster:",
  "  redisUrl: redis://127.0.0.1:6379",
  "  secret: cluster-secret-0123456789",
  "  instanceId: ${INSTANCE}",
  "",
].join("\n");
/** What B's console saved, as B hands it over: B's id, every secret B kept hidden. */
const EDIT_ON_B = FILE_OF_A.replace("紬", "紬二号")
  .replace(KEY, '"********"')
  .replace("postgres://tsumugi@10.0.0.4/tsumugi", '"********"')
  .replace("redis://127.0.0.1:6379", '"********"')
  .replace("cluster-secret-0123456789", '"********"')
  .replace("${INSTANCE}", "b");

let folder: string;
let file: string;
let logs: LogCapture;
let applied: TsumugiConfig[];
const target = (at: string | undefined) => ({
  file: at,
  env: { INSTANCE: "a" },
  secretsSchema: () => consoleSecretsSchema([]),
  apply: (next: TsumugiConfig) => applied.push(next),
  logger: logs.logger(),
});
const refusal = () =>
  logs.lines.find((line) => line.msg.startsWith("config saved on another instance refused here"));

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "tsumugi-adopt-"));
  file = join(folder, "tsumugi.yaml");
  writeFileSync(file, FILE_OF_A);
  logs = new LogCapture();
  applied = [];
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

it("saves the edit over the config file with this instance's own id and secrets, and applies it", () => {
  adoptConfigEdit(EDIT_ON_B, target(file));

  expect(readFileSync(file, "utf8")).toBe(FILE_OF_A.replace("紬", "紬二号"));
  expect(applied.map((config) => [config.bot.name, config.cluster.instanceId])).toEqual([["紬二号", "a"]]);
});

it("refuses an edit whose kept key would follow its provider to another baseUrl", () => {
  adoptConfigEdit(EDIT_ON_B.replace("http://127.0.0.1:9/v1", "http://attacker.example/v1"), target(file));

  expect(readFileSync(file, "utf8")).toBe(FILE_OF_A);
  expect(applied).toEqual([]);
  expect(refusal()?.problems).toEqual([
    "llm.providers[0].apiKey: the provider's baseUrl changed; type the key again",
  ]);
});

it("refuses an edit that adds a ${VAR} reference, as the console does", () => {
  adoptConfigEdit(EDIT_ON_B.replace("name: 紬二号", "name: ${HOME}"), target(file));

  expect(readFileSync(file, "utf8")).toBe(FILE_OF_A);
  expect(applied).toEqual([]);
  expect(JSON.stringify(refusal()?.problems)).toContain("bot.name: ${VAR} references can only be added");
});

it("keeps the config in force when the edit does not load here", () => {
  adoptConfigEdit(`${EDIT_ON_B}chat:\n  timezone: Not/A_Zone\n`, target(file));

  expect(readFileSync(file, "utf8")).toBe(FILE_OF_A);
  expect(JSON.stringify(refusal()?.problems)).toContain("chat.timezone");
});

it("adopts nothing when the instance runs without a config file, whose console cannot save either", () => {
  adoptConfigEdit(EDIT_ON_B, target(undefined));

  expect(applied).toEqual([]);
  expect(logs.lines.map((line) => line.msg)).toEqual([
    "a config saved on another instance is not adopted: this instance runs without a config file",
  ]);
});

it("hands over what the console saved with the secrets it kept hidden, and a key typed again in clear", () => {
  const handed: string[] = [];
  const edits = shareConfigEdits(
    (next) => applied.push(next),
    file,
    { configSaved: (edit) => handed.push(edit) },
    () => consoleSecretsSchema([]),
  );
  const save = (text: string) => {
    writeFileSync(file, text);
    edits.console({} as TsumugiConfig);
  };

  save(FILE_OF_A.replace("紬", "紬二号"));
  // The same key typed again for a new baseUrl: the console took it as typed, so it travels.
  save(FILE_OF_A.replace("紬", "紬二号").replace("http://127.0.0.1:9/v1", "http://10.0.0.9/v1"));

  expect(handed[0]).not.toContain(KEY);
  expect(handed[0]).not.toContain("cluster-secret-0123456789");
  expect(handed[0]).toContain("name: 紬二号");
  expect(handed[1]).toContain(`apiKey: ${KEY}`);
  expect(handed[1]).not.toContain("cluster-secret-0123456789");
  expect(applied).toHaveLength(2);
});
