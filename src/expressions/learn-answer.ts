import { Type } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import { outermostObject } from "../memory/learn-answer.ts";
import type { NewExpression } from "../store/group-types.ts";

/** Longest texts of one expression, as the model writes them and the console edits them. */
export const EXPRESSION_LIMITS = { expression: 100, meaning: 300, example: 300 } as const;

/** One expression of a group, the shape `expressions_learn` asks for and the console sends. */
export const expressionSchema = Type.Object({
  expression: Type.String({ minLength: 1, maxLength: EXPRESSION_LIMITS.expression, pattern: "\\S" }),
  meaning: Type.String({ maxLength: EXPRESSION_LIMITS.meaning }),
  example: Type.String({ maxLength: EXPRESSION_LIMITS.example }),
});

const answerSchema = Type.Object({ expressions: Type.Array(Type.Unknown(), { maxItems: 100 }) });

let validators: { answer: ValidateFunction; entry: ValidateFunction<NewExpression> } | undefined;

/**
 * The expressions in a model's answer: the JSON object alone, or inside a code fence or prose.
 * Entries of the wrong shape are dropped one by one; an answer with no such object throws.
 */
export function parseExpressionAnswer(text: string): { entries: NewExpression[]; dropped: number } {
  validators ??= (() => {
    const ajv = new Ajv({ strict: false });
    return { answer: ajv.compile(answerSchema), entry: ajv.compile<NewExpression>(expressionSchema) };
  })();
  const json = outermostObject(text);
  if (json === undefined) throw new Error("no JSON object in the expressions model's answer");
  const answer: unknown = JSON.parse(json);
  if (!validators.answer(answer))
    throw new Error('the expressions model\'s answer has no "expressions" list');
  const all = (answer as { expressions: unknown[] }).expressions;
  const entries = all
    .filter((entry): entry is NewExpression => validators!.entry(entry))
    .map((entry) => ({
      expression: entry.expression.trim(),
      meaning: entry.meaning.trim(),
      example: entry.example.trim(),
    }));
  return { entries, dropped: all.length - entries.length };
}
