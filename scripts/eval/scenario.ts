/**
 * Scenario files of `npm run eval` (docs/eval.md): YAML read once, checked against the JSON
 * Schemas below, and turned into typed scenarios. A problem names the file and the step, e.g.
 * `eval/mention.yaml: steps[2].wait: must be integer`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Ajv, type ErrorObject } from "ajv";
import { parse } from "yaml";
import { keyPathFromPointer, problemAt } from "../../src/schema/key-path.ts";

/** A platform id as a YAML author writes it: a number (10001) or a string of digits. */
const PlatformId = Type.Unsafe<number | string>({ type: ["integer", "string"], pattern: "^[1-9][0-9]*$" });
const StepIndex = Type.Integer({ minimum: 0 });

const MessageExpect = Type.Object(
  {
    reply: Type.Boolean(),
    /** Longest wait for the answer (reply: true) or for the bot to settle (reply: false). */
    within: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const ForwardNode = Type.Object(
  { user: PlatformId, name: Type.String({ minLength: 1 }), text: Type.String() },
  { additionalProperties: false },
);

const MessageStep = Type.Object(
  {
    user: PlatformId,
    name: Type.String({ minLength: 1 }),
    text: Type.String(),
    reply_to: Type.Optional(Type.Union([StepIndex, Type.Literal("bot")])),
    private: Type.Optional(Type.Boolean()),
    /** A merged forward (合并转发) sent after the text, one node per entry. */
    forward: Type.Optional(Type.Array(ForwardNode, { minItems: 1 })),
    expect: Type.Optional(MessageExpect),
  },
  { additionalProperties: false },
);

const WaitStep = Type.Object({ wait: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
const PokeStep = Type.Object(
  { poke: PlatformId, name: Type.Optional(Type.String({ minLength: 1 })) },
  { additionalProperties: false },
);
const RecallStep = Type.Object({ recall: StepIndex }, { additionalProperties: false });

const ScenarioExpect = Type.Object(
  {
    minBotMessages: Type.Optional(Type.Integer({ minimum: 0 })),
    maxBotMessages: Type.Optional(Type.Integer({ minimum: 0 })),
    mustContain: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    mustNotContain: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    noLeaks: Type.Optional(Type.Boolean()),
    noRepeats: Type.Optional(Type.Boolean()),
    quotes: Type.Optional(StepIndex),
  },
  { additionalProperties: false },
);

const ScenarioFile = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    /** Merged over the bot's config for this scenario (e.g. `chat.participation`). */
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** What the scripted model (`--scripted`) answers in this scenario instead of its default. */
    script: Type.Optional(
      Type.Object(
        { replies: Type.Optional(Type.Array(Type.String())), quote: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    steps: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1 }),
    expect: Type.Optional(ScenarioExpect),
  },
  { additionalProperties: false },
);

export type MessageStep = Omit<Static<typeof MessageStep>, "user" | "forward"> & {
  kind: "message";
  user: string;
  forward?: Array<{ user: string; name: string; text: string }>;
};
export type Step =
  | MessageStep
  | { kind: "wait"; wait: number }
  | { kind: "poke"; poke: string; name?: string }
  | { kind: "recall"; recall: number };
export type ScenarioExpectations = Static<typeof ScenarioExpect>;

export interface Scenario {
  name: string;
  /** The file it was read from. */
  file: string;
  config: Record<string, unknown>;
  /** The scripted model's answers in this scenario (`script`). */
  script: { replies: string[]; quote: boolean };
  steps: Step[];
  expect: ScenarioExpectations;
}

export class ScenarioError extends Error {
  override name = "ScenarioError";
}

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
const checkFile = ajv.compile<Static<typeof ScenarioFile>>(ScenarioFile);
const stepChecks = {
  message: ajv.compile(MessageStep),
  wait: ajv.compile(WaitStep),
  poke: ajv.compile(PokeStep),
  recall: ajv.compile(RecallStep),
};

/** The scenario files `paths` name: files as given, folders' `*.yaml` / `*.yml` files sorted by name. */
export function scenarioFiles(paths: string[]): string[] {
  return paths.flatMap((path) => {
    const found = statSync(path, { throwIfNoEntry: false });
    if (!found) throw new ScenarioError(`${path}: no such scenario file or folder`);
    if (!found.isDirectory()) return [path];
    return readdirSync(path)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort()
      .map((name) => join(path, name));
  });
}

/** Reads and checks one scenario file; throws a ScenarioError listing every problem. */
export function loadScenario(file: string): Scenario {
  let data: unknown;
  try {
    data = parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ScenarioError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!checkFile(data)) throw new ScenarioError(problemsText(file, checkFile.errors, data, []));
  const steps = data.steps.map((raw, index) => readStep(file, raw, index));
  const problems = referenceProblems(steps, data.expect?.quotes);
  if (problems.length > 0)
    throw new ScenarioError(problems.map((problem) => `${file}: ${problem}`).join("\n"));
  return {
    name: data.name,
    file,
    config: data.config ?? {},
    script: { replies: data.script?.replies ?? [], quote: data.script?.quote ?? false },
    steps,
    expect: data.expect ?? {},
  };
}

/** A step's kind is the key that names it (`wait`, `poke`, `recall`); anything else is a message. */
function readStep(file: string, raw: Record<string, unknown>, index: number): Step {
  const kind = "wait" in raw ? "wait" : "poke" in raw ? "poke" : "recall" in raw ? "recall" : "message";
  const check = stepChecks[kind];
  if (!check(raw)) throw new ScenarioError(problemsText(file, check.errors, raw, ["steps", index]));
  switch (kind) {
    case "wait":
      return { kind, wait: raw.wait as number };
    case "recall":
      return { kind, recall: raw.recall as number };
    case "poke":
      return { kind, poke: String(raw.poke), ...(raw.name ? { name: String(raw.name) } : {}) };
    case "message": {
      const message = raw as Static<typeof MessageStep>;
      return {
        ...message,
        kind,
        user: String(message.user),
        forward: message.forward?.map((node) => ({ ...node, user: String(node.user) })),
      };
    }
  }
}

/** `reply_to`, `recall` and `quotes` must name an earlier message step. */
function referenceProblems(steps: Step[], quotes: number | undefined): string[] {
  const problems: string[] = [];
  const check = (where: string, target: number, before: number) => {
    if (target >= before || steps[target]?.kind !== "message")
      problems.push(`${where}: must be the index of an earlier message step`);
  };
  steps.forEach((step, index) => {
    if (step.kind === "message" && typeof step.reply_to === "number")
      check(`steps[${index}].reply_to`, step.reply_to, index);
    if (step.kind === "recall") check(`steps[${index}].recall`, step.recall, index);
  });
  if (quotes !== undefined) check("expect.quotes", quotes, steps.length);
  return problems;
}

function problemsText(
  file: string,
  errors: ErrorObject[] | null | undefined,
  data: unknown,
  prefix: Array<string | number>,
): string {
  const lines = (errors ?? []).map((error) => {
    const path = [...prefix, ...keyPathFromPointer(error.instancePath, data)];
    const extra = error.params as Record<string, unknown>;
    if (error.keyword === "additionalProperties")
      return problemAt([...path, String(extra.additionalProperty)], "unknown key");
    if (error.keyword === "required") return problemAt([...path, String(extra.missingProperty)], "required");
    return problemAt(path, error.message ?? error.keyword);
  });
  return [...new Set(lines)].map((line) => `${file}: ${line}`).join("\n");
}
