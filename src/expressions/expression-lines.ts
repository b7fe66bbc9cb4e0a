import type { PromptTemplates } from "../prompts/templates.ts";
import type { NewExpression } from "../store/group-types.ts";

/** One expression as the models read it: in the prompt's section and in the learner's request. */
export function expressionLine(entry: NewExpression, prompts: PromptTemplates): string {
  return prompts.render("expression_line", {
    expression: entry.expression,
    meaning: entry.meaning,
    example: entry.example,
  });
}

/** The group's way of talking as a prompt section, or empty when nothing is known. */
export function expressionsSection(entries: readonly NewExpression[], prompts: PromptTemplates): string {
  if (entries.length === 0) return "";
  return prompts.render("expressions", {
    lines: entries.map((entry) => expressionLine(entry, prompts)).join("\n"),
  });
}
