import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { TEMPLATE_NAMES } from "../../src/prompts/catalogue.ts";
import { loadPromptTemplates, shippedPromptTemplates } from "../../src/prompts/templates.ts";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsumugi-templates-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): string {
  const file = join(dir, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Problems of a config file `conf/tsumugi.yaml` with this text, read from another working directory. */
function problemsOf(yaml: string): string[] {
  const file = write("conf/tsumugi.yaml", yaml);
  try {
    loadConfig({ file, env: {}, cwd: join(dir, "elsewhere") });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loading prompt templates with the config", () => {
  it("reads prompts.dir relative to the config file, not the working directory", () => {
    write("conf/my-prompts/planner.md", "{{identity}}\n");
    expect(problemsOf("prompts:\n  dir: my-prompts\n")).toEqual([]);
    expect(problemsOf("prompts:\n  dir: conf/my-prompts\n")).toEqual([
      `prompts.dir: cannot read ${join(dir, "conf/conf/my-prompts")} (ENOENT)`,
    ]);
  });

  it("names the file of a folder that is no template, and one that cannot be read", () => {
    write("conf/my-prompts/notes.md", "我的笔记\n");
    write("conf/my-prompts/readme.txt", "not a template: only .md files are\n");
    mkdirSync(join(dir, "conf/my-prompts/digest.md"));
    expect(problemsOf("prompts:\n  dir: my-prompts\n")).toEqual([
      `prompts.dir: cannot read ${join(dir, "conf/my-prompts/digest.md")} (EISDIR)`,
      "prompts.dir: notes.md: unknown template (the names are listed in docs/prompts.md)",
    ]);
  });

  it("says when a template takes no placeholders at all", () => {
    expect(problemsOf('prompts:\n  templates:\n    result_wait_empty: "等了 {{seconds}} 秒"\n')).toEqual([
      "prompts.templates.result_wait_empty: unknown placeholder {{seconds}} in template result_wait_empty (it has no placeholders)",
    ]);
  });

  it("checks the shipped templates of the chosen language too", () => {
    const shipped = join(dir, "shipped");
    for (const name of TEMPLATE_NAMES)
      write(`shipped/en/${name}.md`, name === "summary" ? "{{identiy}}\n" : "\n");
    const load = loadPromptTemplates({ language: "en", templates: {} }, dir, shipped);
    expect(load.ok ? [] : load.problems).toEqual([
      `prompts.language: ${join(shipped, "en/summary.md")}: unknown placeholder {{identiy}} in template summary (known: identity)`,
    ]);
  });
});

describe("rendering a template", () => {
  /** The replyer request written as `text`, rendered with no intent and two extra requirements. */
  const renderReplyerRequest = (text: string) => {
    const load = loadPromptTemplates({ language: "zh", templates: { replyer_request: text } }, dir);
    if (!load.ok) throw new Error(load.problems.join("\n"));
    return load.templates.render("replyer_request", {
      conversation: "聊天",
      memories: "",
      own_recent: "",
      now: "",
      target: "{{intent}}",
      intent: "",
      extra_prompts: "多行\n要求",
    });
  };

  it("drops a line holding only an empty placeholder, inserts values verbatim and leaves stray braces alone", () => {
    expect(
      renderReplyerRequest("{{conversation}}\n{{intent}}\n回：{{target}} {x}} {{\n{{extra_prompts}}\n"),
    ).toBe("聊天\n回：{{intent}} {x}} {{\n多行\n要求");
  });

  it("takes a placeholder only as written, without spaces inside the braces", () => {
    expect(() => renderReplyerRequest("{{ conversation }}")).toThrow(
      "prompts.templates.replyer_request: unknown placeholder {{ conversation }} in template replyer_request",
    );
  });

  it("leaves the final line break of a template out, as the shipped files are written", () => {
    expect(shippedPromptTemplates("zh").render("result_tool_acted")).toBe("已完成。");
  });

  it("parses a template once when it is loaded, not again at each of a turn's renders", () => {
    const templates = shippedPromptTemplates("zh");
    const split = vi.spyOn(String.prototype, "split");
    const replace = vi.spyOn(String.prototype, "replace");
    const identity = templates.render("identity", { bot_name: "紬", aliases: "", persona: "一个群友" });
    const parsing = split.mock.calls.length + replace.mock.calls.length;
    vi.restoreAllMocks();
    expect(identity).toBe("你的名字是紬。\n一个群友");
    expect(parsing).toBe(0);
  });
});
