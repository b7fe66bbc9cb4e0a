import type { UsageRecord } from "../store/types.ts";
/**
 * Provider-neutral shapes of an LLM call. The rest of the bot speaks only these; the AI SDK
 * and the providers' wire formats stay inside `src/llm/`.
 */

export interface LlmToolCallRequest {
  id: string;
  name: string;
  /** Arguments as sent back to the provider (JSON-serialised on the wire). */
  input: unknown;
}

export interface LlmToolResult {
  toolCallId: string;
  toolName: string;
  /** A string is sent as plain text; anything else as JSON. */
  output: unknown;
  /** The tool failed or was called wrongly; `output` explains why. */
  isError?: boolean;
}

/** A picture sent to the model with a user message (the vision task, or a planner looking directly). */
export interface LlmImage {
  mime: string;
  bytes: Uint8Array;
}

export type LlmMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: LlmImage[] }
  | { role: "assistant"; content: string; toolCalls?: LlmToolCallRequest[] }
  | { role: "tool"; results: LlmToolResult[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`{"type":"object","properties":{…}}`). */
  parameters: Record<string, unknown>;
}

export type LlmToolChoice = "auto" | "required" | "none";

export interface LlmRequest {
  /** Key into `llm.models` (planner, replyer, …): selects the ordered model list. */
  task: string;
  messages: LlmMessage[];
  tools?: ToolSpec[];
  toolChoice?: LlmToolChoice;
  temperature?: number;
  maxOutputTokens?: number;
  /** Aborting stops the call at once with an LlmError of kind "aborted"; no fallback. */
  signal?: AbortSignal;
  /** Carried into usage records and log lines so a reply's cost can be traced. */
  replyId?: string;
  /** The chat the call is for, carried into usage records (daily token budgets sum them per chat). */
  sessionId?: string;
  /** The user whose turn the call is for, carried into usage records (the per-user daily budget). */
  userKey?: string;
  /**
   * Set when the turn's chat or user is near a budget (limits.economyAt): the planner and
   * replyer tasks run on `llm.models.economy` when that list is set.
   */
  economy?: boolean;
  /**
   * Set: the user messages' images go only to models listed in `llm.acceptsImages`, the others
   * get the text alone (the planner and replyer looking at a chat's pictures). Unset: every
   * model gets them (the vision task, whose models must accept images).
   */
  imagesOnlyIfAccepted?: boolean;
  /** Set: the answer is streamed and its text handed here as it arrives (the replyer). */
  stream?: LlmTextSink;
}

/**
 * Takes a streamed answer's text while it arrives. Every attempt (the first, a retry, the
 * next model) starts with `restart()`: the sink forgets the text of the attempt before, or
 * answers false when it has already used that text (sent part of a reply); the call then
 * fails instead of trying again, so nothing is said twice.
 */
export interface LlmTextSink {
  restart(): boolean;
  text(delta: string): void;
}

export interface LlmToolCall {
  id: string;
  name: string;
  /**
   * Parsed arguments. When `invalidJson` is set this is that same raw text, so replaying the
   * call to the provider shows the model exactly what it sent.
   */
  input: unknown;
  /** Raw argument text when the model sent arguments that are not valid JSON. */
  invalidJson?: string;
}

export type LlmFinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "other"
  | "unknown";

export interface LlmTokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Of `promptTokens`, those read from the provider's prompt cache, where it reports them. */
  cachedPromptTokens?: number;
}

export interface LlmResult {
  text: string;
  toolCalls: LlmToolCall[];
  usage: LlmTokenUsage;
  /** Provider id from the config (not its type). */
  provider: string;
  model: string;
  latencyMs: number;
  /** Streamed calls: milliseconds from the request to the first text. */
  firstTokenMs?: number;
  finishReason: LlmFinishReason;
}

/** One record per HTTP attempt, successful or not: exactly what the usage store keeps. */
export type LlmUsageRecord = UsageRecord;

/** Why one attempt failed; `status` is the HTTP status when there was a response. */
export interface LlmAttemptFailure {
  provider: string;
  model: string;
  status?: number;
  message: string;
}

/** `broken_off`: a streamed answer failed after its sink had used part of it (not tried again). */
export type LlmErrorKind = "no_model" | "all_failed" | "aborted" | "broken_off";

export class LlmError extends Error {
  override readonly name = "LlmError";

  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly task: string,
    /** Every failed attempt of this call, in order. */
    readonly attempts: LlmAttemptFailure[] = [],
  ) {
    super(message);
  }
}
