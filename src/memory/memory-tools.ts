import type { ToolSpec } from "../llm/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { MAX_MEMORY_CHARS, type MemoryService, sourcesOf } from "./memory-service.ts";
import type { MemorySubject } from "./types.ts";
import { concerns, type MemoryScene, senderSubject, subjectNamed, userIdOf } from "./visibility.ts";

export const REMEMBER_TOOL = "remember";
export const RECALL_TOOL = "recall";

/** `remember` and `recall`, offered to the planner while `memory.enabled`. */
export function memoryToolSpecs(prompts: PromptTemplates): ToolSpec[] {
  return [
    {
      name: REMEMBER_TOOL,
      description: prompts.render("tool_remember"),
      parameters: {
        type: "object",
        properties: {
          content: {
            type: "string",
            minLength: 1,
            maxLength: MAX_MEMORY_CHARS,
            description: prompts.render("tool_remember_content"),
          },
          about: { type: "string", description: prompts.render("tool_remember_about") },
          replaces: { type: "integer", description: prompts.render("tool_remember_replaces") },
        },
        required: ["content"],
        additionalProperties: false,
      },
    },
    {
      name: RECALL_TOOL,
      description: prompts.render("tool_recall"),
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: prompts.render("tool_recall_query") },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
  ];
}

/** `recall`'s and `remember`'s arguments, as their schemas declare them. */
type RecallArguments = { query: string };
type RememberArguments = { content: string; about?: string; replaces?: number };

/** What a memory tool call needs to know of its turn. */
export interface MemoryToolTurn {
  replyId: string;
  /** The turn's new messages. */
  messages: ChatMessage[];
  /** The message the turn answers by default: a fact is about its sender unless `about` says otherwise. */
  target: ChatMessage;
  /** The turn's chat and who is present in it: memory is only about them (visibility.ts). */
  scene: MemoryScene;
  /** The name a user goes by in this chat, when they spoke in it lately. */
  nameOf(userId: string): Promise<string | undefined>;
}

/**
 * What a call did (`output`), or why it cannot: a malformed call (`problem`), or one the memory
 * rules refuse (`refused`: the model may tell the user).
 */
export type MemoryToolResult = { output: string } | { problem: string } | { refused: string };

/** Runs `remember` or `recall` for a turn. */
export async function runMemoryTool(
  memory: MemoryService,
  name: string,
  input: Record<string, unknown>,
  turn: MemoryToolTurn,
  prompts: PromptTemplates,
): Promise<MemoryToolResult> {
  const { scene } = turn;
  const refuse = (reason: string) => ({
    refused: memory.refused(reason, { sessionId: scene.sessionId, by: name }),
  });
  // The arguments passed the tool's schema: only what it cannot say is checked here.
  if (name === RECALL_TOOL) {
    const { query } = input as RecallArguments;
    if (query.trim() === "") return { problem: "query must be a non-empty string" };
    return { output: await memory.recallText(scene, query) };
  }
  const args = input as RememberArguments;
  const content = args.content.trim();
  if (content === "") return { problem: "content must be a non-empty string" };
  const about = args.about?.trim() ? args.about : undefined;
  let named: MemorySubject | undefined;
  if (about !== undefined) {
    named = subjectNamed(scene, about);
    if (named === undefined) {
      return {
        problem: `about must be a user id from this chat${scene.groupId === undefined ? "" : ' or "group"'}`,
      };
    }
  }
  let replaces: number | undefined;
  if (args.replaces !== undefined) {
    const entry = await memory.changeableEntry(args.replaces, scene);
    if (!entry || !concerns(scene, entry.subject))
      return refuse(`no memory #${String(args.replaces)} to change here`);
    if (named !== undefined && named !== entry.subject)
      return refuse(`memory #${entry.id} is about someone else; a memory keeps its subject`);
    named = entry.subject;
    replaces = entry.id;
  }
  const subject = named ?? senderSubject(turn.target);
  const userId = userIdOf(subject);
  if (!concerns(scene, subject)) {
    return refuse(
      `user ${userId} is not in this chat: memories are only about the people here (the sender, someone mentioned, quoted or speaking lately)${scene.groupId === undefined ? "" : ' and "group"'}`,
    );
  }
  const theirs = userId === undefined ? [] : turn.messages.filter((message) => message.userId === userId);
  const sources = sourcesOf(theirs.length > 0 ? theirs : turn.messages);
  const subjectName =
    userId === undefined
      ? (scene.groupId ?? "")
      : ((await turn.nameOf(userId)) ?? theirs.at(-1)?.senderName ?? userId);
  const { entry } = await memory.remember({
    subject,
    subjectName,
    content,
    origin: "tool",
    sessionId: scene.sessionId,
    sources,
    place: scene,
    replyId: turn.replyId,
    ...(replaces === undefined ? {} : { replaces }),
  });
  return { output: prompts.render("result_remembered", { id: String(entry.id) }) };
}
