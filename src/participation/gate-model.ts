import { identityText, type PromptIdentity } from "../agent/prompt.ts";
import type { Batch } from "../chat/batch.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import { renderSegments } from "../message/render.ts";
import type { PromptTemplates } from "../prompts/templates.ts";

/** An answer starting with one of these is a yes; anything else (and a failed call) is a no. */
const YES = /^\W*(yes|y|是|要|会)/iu;

export interface GateModelDeps {
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  /** In a session: whether `llm.models.gate` lists a model there, and who the bot is there. */
  inChat: (sessionId: string) => { hasGateModel: boolean; identity: PromptIdentity };
  prompts: () => PromptTemplates;
  logger: Logger;
}

/**
 * The `gate` task: a small model asked yes or no before an unasked turn, so the planner's cost
 * is spent only where the bot has something to add. Without `llm.models.gate` it always allows.
 */
export class GateModel {
  constructor(private readonly deps: GateModelDeps) {}

  async allows(batch: Batch): Promise<boolean> {
    const inChat = this.deps.inChat(batch.sessionId);
    if (!inChat.hasGateModel) return true;
    const prompts = this.deps.prompts();
    const identity = identityText(prompts, inChat.identity);
    const messages = batch.messages
      .map((message) => `${message.senderName}: ${renderSegments(message.segments)}`)
      .join("\n");
    try {
      const answer = await this.deps.llm().generate({
        task: "gate",
        messages: [{ role: "user", content: prompts.render("participation_gate", { identity, messages }) }],
        maxOutputTokens: 8,
        sessionId: batch.sessionId,
      });
      return YES.test(answer.text.trim());
    } catch (error) {
      this.deps.logger.warn(
        { err: error, sessionId: batch.sessionId },
        "the gate model could not be asked; the bot stays out of the conversation",
      );
      return false;
    }
  }
}
