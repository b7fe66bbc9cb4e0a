import { type Static, Type } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";

const sourceIds = Type.Array(Type.Union([Type.String(), Type.Number()]), { maxItems: 50 });
const content = Type.String({ minLength: 1, maxLength: 1_000 });
const id = Type.Integer({ minimum: 1 });

/** One change the memory model proposes (the shape `memory_learn` asks for). */
const operationSchema = Type.Union([
  Type.Object({
    op: Type.Literal("add"),
    about: Type.Union([Type.String({ minLength: 1 }), Type.Number()]),
    content,
    source_ids: Type.Optional(sourceIds),
  }),
  Type.Object({ op: Type.Literal("update"), id, content, source_ids: Type.Optional(sourceIds) }),
  Type.Object({ op: Type.Literal("confirm"), id, source_ids: Type.Optional(sourceIds) }),
  Type.Object({ op: Type.Literal("delete"), id, reason: Type.Optional(Type.String()) }),
]);

const answerSchema = Type.Object({ memories: Type.Array(Type.Unknown(), { maxItems: 100 }) });

export type LearnOperation = Static<typeof operationSchema>;

let validators: { answer: ValidateFunction; operation: ValidateFunction<LearnOperation> } | undefined;

/**
 * The operations in a memory model's answer: the JSON object alone, or inside a code fence or
 * prose. Operations of the wrong shape are dropped one by one (a model's slip in one line
 * does not cost the others); an answer with no such object at all throws.
 */
export function parseLearnAnswer(text: string): { operations: LearnOperation[]; dropped: number } {
  validators ??= (() => {
    const ajv = new Ajv({ strict: false });
    return { answer: ajv.compile(answerSchema), operation: ajv.compile<LearnOperation>(operationSchema) };
  })();
  const json = outermostObject(text);
  if (json === undefined) throw new Error("no JSON object in the memory model's answer");
  const answer: unknown = JSON.parse(json);
  if (!validators.answer(answer)) throw new Error('the memory model\'s answer has no "memories" list');
  const all = (answer as { memories: unknown[] }).memories;
  const operations = all.filter((operation): operation is LearnOperation => validators!.operation(operation));
  return { operations, dropped: all.length - operations.length };
}

/** From the first `{` to the last `}`: fences and sentences around the object fall away. */
export function outermostObject(text: string): string | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start === -1 || end < start ? undefined : text.slice(start, end + 1);
}
