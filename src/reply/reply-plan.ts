import type { SelectedExtension } from "../components/plugin-options.ts";
import type { LlmMessage } from "../llm/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import type { SessionOrigin } from "./outbox.ts";

/**
 * What the planner decided to say (its `reply` call, checked): the reply stage writes and
 * sends it. Made by the agent, read by the reply stage.
 */
export interface ReplyPlan {
  /** The planner's reply tool call id (reply extensions see it as `call_id`). */
  callId: string;
  /** The message being answered. */
  target: ChatMessage;
  /** Whether the first message quotes the target (`set_quote`). */
  quote: boolean;
  /** What the planner wants to say, when it said. */
  intent?: string;
  /** The reply extensions its `plugin_options` selected, in chain order, with their parameters. */
  extensions: SelectedExtension[];
  /** Where the reply goes. */
  origin: SessionOrigin;
}

/** The turn's side of writing a reply: its prompt and its hooks. */
export interface ReplyWriting {
  /** Told what the replyer is about to be asked (PreReplyGenerate), extensions' extra prompts included. */
  generating(extraPrompts: string[]): Promise<void>;
  /** The replyer's messages for the plan, with the extensions' extra requirements. */
  prompt(extraPrompts: string[]): Promise<LlmMessage[]>;
  /** Delivers the guarded text another way, if it can (spoken): the message sent instead; undefined sends the text. */
  deliver?: ReplyDelivery;
}

/** A reply's text as one other message (a voice message), or undefined when it goes out as text after all. */
export type ReplyDelivery = (text: string) => Promise<Segment[] | undefined>;
