import type { ChatMode } from "../chat/config.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { HistoryBounds } from "./history-window.ts";
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
  /** `chat.mode`: planner + replyer, or the planner's reply call carrying the text (single). */
  mode: ChatMode;
  maxRounds: number;
  turnTimeoutMs: number;
  /** `agent.maxWaitSeconds`: the most the `wait` tool holds one turn, all its calls together. */
  maxWaitSeconds: number;
  history: HistoryBounds;
  /** `chat.avoidRepeating`: the bot's own latest messages the replyer is shown not to repeat. */
  avoidRepeating: number;
  textChunkLimit: number;
  digest: TranscriptTurnSettings;
  summary: TranscriptTurnSettings;
  /** `chat.timezone`'s clock, for every time the models read. */
  clock: ZonedClock;
}
