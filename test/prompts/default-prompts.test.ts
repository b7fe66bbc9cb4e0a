import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtinToolSpecs } from "../../src/agent/builtin-tools.ts";
import { plannerMessages, replyerMessages } from "../../src/agent/prompt.ts";
import { digestMessages, summaryMessages } from "../../src/agent/transcript-prompt.ts";
import { shippedPromptTemplates } from "../../src/prompts/templates.ts";
import { replyExtras, transcriptCases, turnCases } from "./prompt-cases.ts";

/** What the models read before the texts became templates, captured from the code of that time. */
const before = JSON.parse(
  readFileSync(new URL("./fixtures/zh-before-templates.json", import.meta.url), "utf8"),
) as Record<string, Record<string, unknown>>;

describe("the shipped zh templates (the default)", () => {
  const prompts = shippedPromptTemplates("zh");
  const turn = {
    minimal: { ...turnCases.minimal, prompts },
    full: { ...turnCases.full, prompts },
  };
  const transcript = {
    empty: { ...transcriptCases.empty, prompts },
    full: { ...transcriptCases.full, prompts },
  };

  it("give the planner and the replyer the cache-friendly layout of the fixture, byte for byte", () => {
    expect(plannerMessages(turn.minimal)).toEqual(before.planner!.minimal);
    expect(plannerMessages(turn.full)).toEqual(before.planner!.full);
    expect(replyerMessages({ ...turn.minimal, ...replyExtras.minimal })).toEqual(before.replyer!.minimal);
    expect(replyerMessages({ ...turn.full, ...replyExtras.full })).toEqual(before.replyer!.full);
  });

  it("give digest and summary turns the prompts they had, byte for byte", () => {
    expect(digestMessages(transcript.empty)).toEqual(before.digest!.empty);
    expect(digestMessages(transcript.full)).toEqual(before.digest!.full);
    expect(summaryMessages(transcript.empty, undefined)).toEqual(before.summary!.empty);
    expect(summaryMessages(transcript.full, "张三(10001)")).toEqual(before.summary!.full);
  });

  it("declare the built-in tools and word tool results as before", () => {
    expect(builtinToolSpecs(prompts, "planner")).toEqual(before.tools);
    expect(builtinToolSpecs(prompts, "planner", { type: "object", properties: {} })).toEqual(
      before.toolsWithOptions,
    );
    expect({
      malformedJson: prompts.render("result_malformed_json"),
      alreadyReplied: prompts.render("result_already_replied"),
      toolActed: prompts.render("result_tool_acted"),
      toolFailed: prompts.render("result_tool_failed", { tool: "weather", error: "timeout" }),
      invalidCall: prompts.render("result_invalid_call", { tool: "reply", problem: "msg_id 不存在" }),
      waitArrived: prompts.render("result_wait_arrived", { messages: "a\nb" }),
      waitEmpty: prompts.render("result_wait_empty"),
      hookDeniedWithReason: prompts.render("result_hook_denied", { reason: "不许" }),
      hookDeniedWithoutReason: prompts.render("result_hook_denied", {
        reason: prompts.render("result_hook_denied_default"),
      }),
      approvalDenied: prompts.render("result_approval_denied"),
      approvalExpired: prompts.render("result_approval_expired"),
    }).toEqual(before.toolResults);
  });
});
