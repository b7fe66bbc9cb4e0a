import type { ZonedClock } from "../context/clock-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { PromptIdentity } from "./prompt.ts";

/** How digest and summary turns read their transcript: the model task and the size bound. */
export interface TranscriptTurnSettings {
  task: string;
  maxTranscriptChars: number;
}

export interface AgentSettings {
  /** `persona` is `bot.persona`, or the language's `persona` template when that is unset. */
  identity: PromptIdentity;
  /** The templates of every text the models read, checked at load and swapped on reload. */
  prompts: PromptTemplates;
  maxRounds: number;
  turnTimeoutMs: number;
  history: { maxMessages: number; maxChars: number };
  textChunkLimit: number;
  digest: TranscriptTurnSettings;
  summary: TranscriptTurnSettings;
  /** `chat.timezone`'s clock, for every time the models read. */
  clock: ZonedClock;
}
