/**
 * Turns what a plugin declares (decorator options, function declarations, later a stdio
 * plugin's activate answer) into host components, checking the declaration once here.
 * The runtime supplies how to call the plugin; everything else is decided in this file.
 */
import type { Ajv } from "ajv";
import type {
  ChatScope,
  CommandOptions,
  ComponentOptions,
  EnricherOptions,
  HookEventName,
  HookInput,
  HookOptions,
  HookResult,
  JsonSchema,
  OutgoingMessage,
  ToolOptions,
} from "../sdk/types.ts";
import { normalizeParameters } from "./parameters.ts";
import type {
  CallContext,
  CommandComponent,
  CommandMatch,
  ComponentScope,
  EnricherComponent,
  HookComponent,
  PluginToolComponent,
  ToolComponent,
} from "./types.ts";

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
export const DEFAULT_ENRICHER_TIMEOUT_MS = 3_000;
const HOOK_EVENTS: readonly HookEventName[] = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "AgentStop",
  "SessionStart",
  "PreReplyGenerate",
];
const TOOL_EVENTS = new Set<HookEventName>(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);
const COMPONENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface Identity {
  pluginId: string;
  name: string;
}

/** A component plus whether it starts enabled (`enabled: false` in its options). */
export interface Built<T> {
  component: T;
  enabled: boolean;
}

export function buildTool(
  identity: Identity,
  options: ToolOptions,
  defaultTimeoutMs: number,
  ajv: Ajv,
  invoke: PluginToolComponent["invoke"],
): Built<PluginToolComponent> {
  const where = describe("tool", identity);
  if (typeof options?.description !== "string" || !options.description.trim()) {
    throw new Error(`${where} needs a description (the model reads it to decide when to call the tool)`);
  }
  let parameters: Record<string, unknown>;
  let validate: ToolComponent["validate"];
  try {
    parameters = normalizeParameters(options.parameters);
    validate = schemaValidator(ajv, parameters);
  } catch (error) {
    throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    component: {
      kind: "tool",
      ...base(identity, options.description, options),
      parameters,
      timeoutMs: timeout(options.timeout_ms, defaultTimeoutMs, where),
      validate,
      invoke,
    },
    enabled: options.enabled !== false,
  };
}

/**
 * A tool's argument check: compiles its object schema (throws when Ajv refuses it) and returns
 * what is wrong with a call's arguments, or undefined when they are valid (defaults filled in).
 * Every tool, the host's own and the plugins', is checked this way.
 */
export function schemaValidator(ajv: Ajv, parameters: JsonSchema): ToolComponent["validate"] {
  const check = ajv.compile(parameters);
  return (args) => {
    if (check(args)) return undefined;
    return (check.errors ?? [])
      .map((error) => `${error.instancePath.slice(1) || "arguments"} ${error.message}`)
      .join("; ");
  };
}

export function buildCommand(
  identity: Identity,
  options: CommandOptions,
  invoke: (
    match: CommandMatch,
    call: CallContext & { isAdmin: boolean },
  ) => Promise<OutgoingMessage | undefined>,
): Built<CommandComponent> {
  const where = describe("command", identity);
  const pattern = options.pattern;
  if (pattern !== undefined && !(pattern instanceof RegExp))
    throw new Error(`${where}: pattern must be a RegExp`);
  const prefixes = [options.prefix ?? `/${identity.name}`].flat();
  if (
    !pattern &&
    prefixes.some((prefix) => typeof prefix !== "string" || !prefix.trim() || /\s/.test(prefix))
  ) {
    throw new Error(`${where}: every prefix must be a non-empty word without spaces`);
  }
  // Longest first, so "/plugins" is not taken for "/plugin".
  const ordered = [...prefixes].sort((a, b) => b.length - a.length);
  const usage = options.usage ? ` ${options.usage}` : "";
  return {
    component: {
      kind: "command",
      ...base(identity, options.description ?? "", options),
      adminOnly: options.admin_only === true,
      synopsis: pattern ? String(pattern) : `${prefixes.join(" | ")}${usage}`,
      match: pattern ? (text) => matchPattern(pattern, text) : (text) => matchPrefix(ordered, text),
      invoke,
    },
    enabled: options.enabled !== false,
  };
}

export function buildHook(
  identity: Identity,
  options: HookOptions,
  invoke: (input: HookInput, call: CallContext) => Promise<HookResult | undefined>,
): Built<HookComponent> {
  const where = describe("hook", identity);
  if (!HOOK_EVENTS.includes(options?.event)) {
    throw new Error(`${where}: event must be one of ${HOOK_EVENTS.join(", ")}`);
  }
  if (options.matcher !== undefined && typeof options.matcher !== "string") {
    throw new Error(`${where}: matcher must be a string such as "weather|search_*"`);
  }
  const matcher = options.matcher ? globMatcher(options.matcher) : undefined;
  const forTools = TOOL_EVENTS.has(options.event);
  return {
    component: {
      kind: "hook",
      ...base(identity, "", options),
      event: options.event,
      timeoutMs: timeout(options.timeout_ms, DEFAULT_HOOK_TIMEOUT_MS, where),
      matches: (toolName) => !forTools || !matcher || (toolName !== undefined && matcher.test(toolName)),
      invoke,
    },
    enabled: options.enabled !== false,
  };
}

export function buildEnricher(
  identity: Identity,
  options: EnricherOptions,
  invoke: (call: CallContext) => Promise<string | undefined>,
): Built<EnricherComponent> {
  const where = describe("enricher", identity);
  return {
    component: {
      kind: "enricher",
      ...base(identity, options.description ?? "", options),
      timeoutMs: timeout(options.timeout_ms, DEFAULT_ENRICHER_TIMEOUT_MS, where),
      invoke,
    },
    enabled: options.enabled !== false,
  };
}

/** Checks the component name; returns "kind pluginId.name" for error messages. */
export function describe(kind: string, identity: Identity): string {
  if (!COMPONENT_NAME.test(identity.name)) {
    throw new Error(`${kind} name "${identity.name}" must be 1-64 letters, digits, _ or -`);
  }
  return `${kind} ${identity.pluginId}.${identity.name}`;
}

/** The fields every component has: names, description and scope. */
export function base(identity: Identity, description: string, options: ComponentOptions) {
  return {
    pluginId: identity.pluginId,
    name: identity.name,
    fullName: `${identity.pluginId}.${identity.name}`,
    description,
    scope: scopeOf(options, `${identity.pluginId}.${identity.name}`),
  };
}

function scopeOf(options: ComponentOptions, where: string): ComponentScope {
  const chatScope: ChatScope = options.chat_scope ?? "all";
  if (!["all", "group", "private"].includes(chatScope)) {
    throw new Error(`${where}: chat_scope must be all, group or private`);
  }
  const allowed = options.allowed_session;
  if (allowed === undefined || allowed === null) return { chatScope };
  if (!Array.isArray(allowed) || allowed.some((id) => typeof id !== "string" || !id)) {
    throw new Error(`${where}: allowed_session must be a list of session ids`);
  }
  return { chatScope, allowedSessions: [...allowed] };
}

/** A declared timeout_ms (a positive integer) or the fallback. */
export function timeout(value: number | undefined, fallback: number, where: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${where}: timeout_ms must be a positive integer`);
  return value;
}

function matchPrefix(prefixes: string[], text: string): CommandMatch | undefined {
  for (const prefix of prefixes) {
    if (text.length < prefix.length || text.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) {
      continue;
    }
    const after = text.slice(prefix.length);
    if (after !== "" && !/^\s/u.test(after)) continue;
    const rest = after.trim();
    return { command: prefix, args: splitArguments(rest), rest };
  }
  return undefined;
}

function matchPattern(pattern: RegExp, text: string): CommandMatch | undefined {
  const match = text.match(pattern);
  if (!match) return undefined;
  const rest = text.slice((match.index ?? 0) + match[0].length).trim();
  return { command: match[0], args: splitArguments(rest), rest, match };
}

/** Words separated by spaces; "double quoted" words keep their spaces. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  for (const found of text.matchAll(/"([^"]*)"|(\S+)/gu)) words.push(found[1] ?? found[2]!);
  return words;
}

/** `*` matches any run of characters, `|` separates alternatives. */
function globMatcher(pattern: string): RegExp {
  const alternatives = pattern.split("|").map((part) =>
    part
      .trim()
      .split("*")
      .map((piece) => piece.replace(/[.+?^${}()[\]\\]/g, "\\$&"))
      .join(".*"),
  );
  return new RegExp(`^(?:${alternatives.join("|")})$`);
}
