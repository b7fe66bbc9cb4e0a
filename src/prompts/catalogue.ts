/**
 * Every template the bot renders and the placeholders each may use. The shipped texts are
 * `prompts/<language>/<name>.md`; docs/prompts.md describes each one. A name or placeholder
 * not listed here is a config error wherever it is written.
 */
export const TEMPLATE_PLACEHOLDERS = {
  // Who the bot is: the first part of every system prompt.
  persona: [],
  identity: ["bot_name", "aliases", "persona"],
  identity_aliases: ["aliases"],
  alias_separator: [],
  // Pieces of the chat the models read.
  place_group: ["group_id"],
  place_qq_group: ["group_id"],
  place_private: [],
  now: ["date", "time"],
  conversation: ["place", "messages", "quote", "new_messages", "omitted"],
  new_messages: ["count"],
  omitted: ["count"],
  transcript: ["place", "count", "messages", "now"],
  transcript_empty: [],
  // The planner, the replyer, digest and summary turns: system prompt, then request.
  planner: ["identity", "channel_prompts", "expressions"],
  planner_single: ["identity", "channel_prompts", "expressions"],
  planner_request: ["conversation", "memories", "enrichments", "now"],
  planner_unasked: [],
  participation_gate: ["identity", "messages"],
  replyer: ["identity", "channel_prompts", "expressions"],
  replyer_request: ["conversation", "memories", "own_recent", "now", "target", "intent", "extra_prompts"],
  replyer_intent: ["intent"],
  digest: ["identity", "skip"],
  digest_request: ["transcript", "skip"],
  summary: ["identity"],
  summary_request: ["transcript", "requester"],
  summary_requester_unknown: [],
  // The vision task: what is asked with a picture (llm.models.vision).
  vision_image: [],
  vision_sticker: [],
  // The planner's built-in tools, as declared to the model.
  tool_reply: [],
  tool_reply_msg_id: [],
  tool_reply_set_quote: [],
  tool_reply_intent: [],
  tool_reply_text: [],
  tool_no_reply: [],
  tool_no_reply_reason: [],
  tool_wait: ["max_seconds"],
  tool_wait_seconds: [],
  tool_send_sticker: [],
  tool_send_sticker_emotion: [],
  tool_send_sticker_description: [],
  tool_poke: [],
  // Tool results the planner reads.
  result_malformed_json: [],
  result_already_replied: [],
  result_reply_requirements: ["requirements"],
  result_tool_acted: [],
  result_tool_failed: ["tool", "error"],
  result_invalid_call: ["tool", "problem"],
  result_wait_arrived: ["messages"],
  result_wait_empty: [],
  result_wait_spent: ["max_seconds"],
  result_sticker_sent: ["description"],
  result_sticker_none: [],
  result_poked: ["name"],
  result_hook_denied: ["reason"],
  result_hook_denied_default: [],
  result_approval_denied: [],
  result_approval_expired: [],
  // Deferred tools (agent.deferToolsAbove): the tool_search tool and what it finds.
  tool_search: [],
  tool_search_query: [],
  result_tool_search: ["tools"],
  result_tool_search_none: [],
  // Long-term memory (memory.*): recalled memories, the remember and recall tools, the learner.
  memories: ["lines"],
  memory_line: ["id", "about", "content", "date"],
  memory_about_group: [],
  tool_remember: [],
  tool_remember_content: [],
  tool_remember_about: [],
  tool_remember_replaces: [],
  tool_recall: [],
  tool_recall_query: [],
  result_remembered: ["id"],
  result_recalled: ["lines"],
  result_recalled_none: [],
  result_memory_refused: ["reason"],
  memory_learn: ["bot_name"],
  memory_learn_request: ["place", "known", "transcript"],
  memory_known_none: [],
  // Groups' ways of talking (chat.expressions) and the bot's own recent messages (chat.avoidRepeating).
  expressions: ["lines"],
  expression_line: ["expression", "meaning", "example"],
  expressions_learn: ["bot_name", "max_entries"],
  expressions_learn_request: ["place", "known", "transcript"],
  expressions_known_none: [],
  own_recent: ["lines"],
  // The knowledge base (knowledge.*) and web search (search.*): retrieved passages and the tools.
  knowledge: ["passages"],
  knowledge_passage: ["number", "source", "text"],
  tool_search_knowledge: [],
  tool_search_knowledge_query: [],
  tool_web_search: [],
  tool_web_search_query: [],
  tool_fetch_page: [],
  tool_fetch_page_url: [],
  // Reminders (/remind, the schedule tool) and schedules:, and the ping-pong guard's notice.
  reminder_usage: [],
  reminder_set: ["time", "text", "id"],
  reminder_refused_empty: [],
  reminder_refused_past: ["time", "now"],
  reminder_refused_too_far: ["time", "days"],
  reminder_refused_chat_full: ["max"],
  reminder_refused_person_full: ["max"],
  reminder_list: ["lines"],
  reminder_list_none: [],
  reminder_cancel_usage: [],
  reminder_cancelled: ["id"],
  reminder_cancel_unknown: ["id"],
  reminder_due: ["name", "time", "text", "late"],
  reminder_due_now: [],
  reminder_due_late: [],
  reminder_stored: ["text"],
  reminder_late_note: ["time"],
  schedule_prompt_request: ["transcript", "prompt"],
  participation_resting: [],
  // Approvals of tool calls (/approve, /deny) and what commands answer when refused or failing.
  approval_request: ["tool", "why", "id", "seconds"],
  approval_request_why: ["reason"],
  approval_usage: ["command"],
  approval_unknown: ["id"],
  approval_approved: ["id"],
  approval_refused: ["id"],
  command_admin_only: [],
  command_failed: ["error"],
} as const satisfies Record<string, readonly string[]>;

export type TemplateName = keyof typeof TEMPLATE_PLACEHOLDERS;
export type Placeholder<Name extends TemplateName> = (typeof TEMPLATE_PLACEHOLDERS)[Name][number];

export const TEMPLATE_NAMES = Object.keys(TEMPLATE_PLACEHOLDERS) as TemplateName[];

export const PROMPT_LANGUAGES = ["zh", "en"] as const;
export type PromptLanguage = (typeof PROMPT_LANGUAGES)[number];

export function isTemplateName(name: string): name is TemplateName {
  return Object.hasOwn(TEMPLATE_PLACEHOLDERS, name);
}
