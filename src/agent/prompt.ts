import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmImage, LlmMessage } from "../llm/types.ts";
import { type PromptChat, placeText } from "../prompts/place-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";

export interface PromptIdentity {
  name: string;
  aliases: string[];
  persona: string;
}

export interface TurnPromptInput {
  /** The templates every text below is written with (prompts.language and overrides). */
  prompts: PromptTemplates;
  identity: PromptIdentity;
  chat: PromptChat;
  /** Earlier messages, oldest first, formatted like `newLines` and bounded. */
  historyLines: string[];
  /**
   * This turn's new messages, formatted with their msg_id labels. They follow the history in
   * the same form, so the next turn's prompt, where they are history, extends this one.
   */
  newLines: string[];
  /** New messages left out because too many arrived at once (they stay stored); said after the rest. */
  omittedCount?: number;
  /**
   * What the newest quoting message quotes and forwards (the quote block) followed by that
   * message, shown after the chat under the new messages' heading.
   */
  quoteBlock?: string;
  /** The channel's system prompt parts (stdio `channel_prompt`), ordered by key; stable, so after the rules. */
  systemParts?: string[];
  /**
   * Planner only: enricher sections (each under a heading naming enricher and plugin). They
   * change per turn, so they go after the chat and leave the cached prefix intact.
   */
  enrichments?: string[];
  /** Planner only: nobody addressed the bot; participation chose this chat moment (said after the chat). */
  unasked?: boolean;
  /**
   * What is remembered about the people speaking and this group (memory section, or empty):
   * after the chat, so the cached prefix stays; the planner and the replyer both read it.
   */
  memories?: string;
  /** Passages of the knowledge base retrieved for this turn (or empty): after the memories, for the same reason. */
  knowledge?: string;
  /**
   * The group's way of talking (expressions section, or empty): it changes a few times a day at
   * most, so it sits in the system prompt with the persona, inside the cached prefix.
   */
  expressions?: string;
  /**
   * The bot's own latest messages in the chat (own_recent section, or empty), which the replyer
   * is not to repeat: after the chat, as they change whenever the bot speaks.
   */
  ownRecent?: string;
  /**
   * The new messages' pictures, after the request's text (so the cached prefix stays): only a
   * model in `llm.acceptsImages` is sent them (looking directly).
   */
  images?: LlmImage[];
  now: number;
  /** Times in the prompt are written in `chat.timezone`. */
  clock: ZonedClock;
}

export function identityText(prompts: PromptTemplates, identity: PromptIdentity): string {
  const aliases = identity.aliases.join(prompts.render("alias_separator"));
  return prompts.render("identity", {
    bot_name: identity.name,
    aliases: aliases === "" ? "" : prompts.render("identity_aliases", { aliases }),
    persona: identity.persona,
  });
}

/** The closing line with the current local date and time (volatile, so it goes last). */
export function nowText(prompts: PromptTemplates, now: number, clock: ZonedClock): string {
  return prompts.render("now", { date: clock.date(now), time: clock.time(now) });
}

/**
 * Sections (channel prompts after the rules, enrichments after the chat), each after a blank
 * line; empty when there are none, so the template's line for them disappears.
 */
export function sectionsText(sections: string[] | undefined): string {
  return (sections ?? []).map((section) => `\n${section}`).join("\n");
}

/**
 * Parts that rarely change come first (identity, rules), then the chat oldest to newest with
 * this turn's messages last, then what is said about this turn (quote, which messages are
 * new) and, in the request templates, volatile details: each turn's prompt extends the
 * previous one's chat, so consecutive turns share a long cached prefix.
 */
function conversationText(input: TurnPromptInput): string {
  const { prompts } = input;
  return prompts.render("conversation", {
    place: placeText(prompts, input.chat),
    messages: [...input.historyLines, ...input.newLines].join("\n"),
    quote: input.quoteBlock ?? "",
    new_messages: prompts.render("new_messages", { count: String(input.newLines.length) }),
    omitted: input.omittedCount ? prompts.render("omitted", { count: String(input.omittedCount) }) : "",
  });
}

/** `system` is `planner_single` in single mode (the reply call carries the text). */
export function plannerMessages(
  input: TurnPromptInput,
  system: "planner" | "planner_single" = "planner",
): LlmMessage[] {
  const { prompts } = input;
  return [
    systemMessage(input, system),
    {
      role: "user",
      content: prompts.render("planner_request", {
        conversation: conversationText(input),
        memories: sectionsText(
          [input.memories, input.knowledge].filter((section): section is string => !!section),
        ),
        enrichments: sectionsText([
          ...(input.enrichments ?? []),
          ...(input.unasked ? [prompts.render("planner_unasked")] : []),
        ]),
        now: nowText(prompts, input.now, input.clock),
      }),
      ...imagesOf(input),
    },
  ];
}

/** The persona and the plugins' system parts, in the planner's or the replyer's template. */
function systemMessage(
  input: TurnPromptInput,
  template: "planner" | "planner_single" | "replyer",
): LlmMessage {
  const { prompts } = input;
  return {
    role: "system",
    content: prompts.render(template, {
      identity: identityText(prompts, input.identity),
      channel_prompts: sectionsText(input.systemParts),
      expressions: sectionsText(input.expressions ? [input.expressions] : []),
    }),
  };
}

function imagesOf(input: TurnPromptInput): { images?: LlmImage[] } {
  return input.images?.length ? { images: input.images } : {};
}

export interface ReplyPromptInput extends TurnPromptInput {
  /** The message being answered, formatted. */
  targetLine: string;
  /** What the planner wants to say, when it said. */
  intent?: string;
  /** Extra requirements from reply extensions (their prepare phase's `extra_prompt`), verbatim. */
  extraPrompts: string[];
}

export function replyerMessages(input: ReplyPromptInput): LlmMessage[] {
  const { prompts } = input;
  return [
    systemMessage(input, "replyer"),
    {
      role: "user",
      content: prompts.render("replyer_request", {
        conversation: conversationText(input),
        memories: sectionsText(
          [input.memories, input.knowledge].filter((section): section is string => !!section),
        ),
        own_recent: sectionsText(input.ownRecent ? [input.ownRecent] : []),
        now: nowText(prompts, input.now, input.clock),
        target: input.targetLine,
        intent: input.intent ? prompts.render("replyer_intent", { intent: input.intent }) : "",
        extra_prompts: input.extraPrompts.length > 0 ? `\n${input.extraPrompts.join("\n")}` : "",
      }),
      ...imagesOf(input),
    },
  ];
}
