import { Ajv, type ErrorObject } from "ajv";
import type {
  ReplyExtensionPhase,
  ReplyExtensionResult,
  ReplyMessage,
  ReplySegmentType,
} from "../sdk/types.ts";

/** The reply segment types; `satisfies` keeps the list the SDK's `ReplySegmentType`, no more, no less. */
const SEGMENT_TYPES = Object.keys({
  text: true,
  image: true,
  emoji: true,
  voice: true,
  at: true,
  reply: true,
  file: true,
  forward: true,
  dict: true,
} satisfies Record<ReplySegmentType, true>);

const segment = {
  type: "object",
  required: ["type", "data"],
  properties: {
    type: { enum: SEGMENT_TYPES },
    data: {},
    binary_data_base64: { type: "string" },
    hash: { type: "string" },
  },
  additionalProperties: false,
};

const message = {
  type: "object",
  required: ["segments"],
  properties: {
    segments: { type: "array", items: segment },
    quote_previous: { type: "boolean", default: false },
  },
  additionalProperties: false,
};

const schemas: Record<ReplyExtensionPhase, object> = {
  prepare: {
    type: "object",
    properties: { extra_prompt: { type: "string" } },
    additionalProperties: false,
  },
  before_send: {
    type: "object",
    properties: { messages: { type: "array", items: message } },
    additionalProperties: false,
  },
};

function compileResultSchemas() {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
  return {
    prepare: ajv.compile<ReplyExtensionResult>(schemas.prepare),
    before_send: ajv.compile<{ messages?: ReplyMessage[] }>(schemas.before_send),
  };
}

export type ResultCheck = (phase: ReplyExtensionPhase, result: unknown) => ReplyExtensionResult;

/**
 * Checks what a handler returned against the shape of its phase (prepare or before_send) and returns a
 * copy the handler can no longer change; throws the reason when the shape is wrong.
 * `quote_previous` defaults to false. Segment contents are checked with the group.
 * The schemas are compiled at the first check: a bot without reply extensions never pays for it.
 */
export function createResultCheck(): ResultCheck {
  let validators: ReturnType<typeof compileResultSchemas> | undefined;
  return (phase, result) => {
    validators ??= compileResultSchemas();
    if (typeof result !== "object" || result === null || Array.isArray(result)) {
      const what = result === null ? "null" : Array.isArray(result) ? "a list" : typeof result;
      throw new Error(`returned ${what}, not an object ({} keeps the reply as it is)`);
    }
    let copy: unknown;
    try {
      copy = structuredClone(result);
    } catch {
      throw new Error("returned something that is not plain data");
    }
    const validate = validators[phase];
    if (!validate(copy)) {
      throw new Error(
        `returned an invalid ${phase} result: ${(validate.errors ?? []).map(problemText).join("; ")}`,
      );
    }
    return copy;
  };
}

function problemText(error: ErrorObject): string {
  const where = error.instancePath || "the result";
  if (error.keyword === "additionalProperties") {
    return `${where} has unknown field "${String(error.params.additionalProperty)}"`;
  }
  if (error.keyword === "enum") return `${where} must be one of ${SEGMENT_TYPES.join(", ")}`;
  return `${where} ${error.message ?? "is invalid"}`;
}
