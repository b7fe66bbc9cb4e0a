import { callWithLimit } from "../components/call-limit.ts";
import type { ReplyExtensionRegistry } from "../components/extension-registry.ts";
import { type SelectedExtension, type Selection, selectExtensions } from "../components/plugin-options.ts";
import type { PluginSpeechSource, SessionRef } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type {
  JsonSchema,
  ReplyChat,
  ReplyExtensionPayload,
  ReplyExtensionPhase,
  ReplyExtensionResult,
  ReplyMessage,
} from "../sdk/types.ts";
import { createResultCheck, type ResultCheck } from "./extension-result.ts";
import { describeGroup, type OutgoingReply, ReplyAttachments, textGroup, toOutgoing } from "./reply-group.ts";

export interface ReplyExtensionRunnerDeps {
  registry: ReplyExtensionRegistry;
  /** The host's text-to-speech, for the reply's turn. */
  speech: PluginSpeechSource;
  monitor: Monitor;
  logger: Logger;
}

/** The reply the extensions take part in. */
export interface ReplyInFlight {
  replyId: string;
  /** The planner's reply tool call id. */
  callId: string;
  /** The message being answered. */
  target: ChatMessage;
  /** The turn's signal: aborting it aborts a running extension. */
  signal: AbortSignal;
}

/** Raised when an extension fails a reply; its message names the extension, phase and reason. */
export class ReplyExtensionFailure extends Error {}

/** Reply extensions as the agent's reply step uses them (prepare, before_send). */
export class ReplyExtensionRunner {
  private readonly check: ResultCheck = createResultCheck();

  constructor(private readonly deps: ReplyExtensionRunnerDeps) {}

  /** The reply tool's `plugin_options` schema for the session, or undefined when no extension applies. */
  optionsSchema(session: SessionRef): JsonSchema | undefined {
    return this.deps.registry.optionsSchema(session);
  }

  /** Reads the planner's `plugin_options` against the extensions active in the session. */
  select(pluginOptions: unknown, session: SessionRef): Selection {
    return selectExtensions(pluginOptions, this.deps.registry.visibleIn(session));
  }

  /**
   * The extensions active in the session that take no options from the planner (their
   * parameters' defaults suffice), in chain order: what a message the bot says on its own
   * (a reminder) passes, having no planner to select any.
   */
  withoutOptions(session: SessionRef): SelectedExtension[] {
    return this.deps.registry.visibleIn(session).flatMap((extension) => {
      const selection = selectExtensions({ [extension.fullName]: {} }, [extension]);
      return selection.ok ? selection.selected : [];
    });
  }

  /** The selected extensions' chain for one reply. */
  chain(reply: ReplyInFlight, selected: SelectedExtension[]): ReplyExtensionChain {
    return new ReplyExtensionChain(reply, selected, this.deps, this.check);
  }
}

/**
 * Runs the selected extensions of one reply in chain order: `prepare` before generation,
 * `before_send` after it, each extension getting the previous one's group. Any failure
 * (an exception, a timeout, an invalid return, an empty group, the extension unloaded or
 * reloaded meanwhile) is logged, shown on the monitor and thrown, so nothing is sent.
 */
export class ReplyExtensionChain {
  private readonly chat: ReplyChat;

  constructor(
    private readonly reply: ReplyInFlight,
    private readonly selected: SelectedExtension[],
    private readonly deps: ReplyExtensionRunnerDeps,
    private readonly check: ResultCheck,
  ) {
    this.chat = replyChatOf(reply.target);
  }

  /** The extra requirements for the replyer, in chain order. */
  async prepare(): Promise<string[]> {
    const prompts: string[] = [];
    for (const step of this.selected) {
      const prompt = await this.run(step, "prepare", "", [], (checked) => ({
        value: checked.extra_prompt,
        shown: { extraPrompt: checked.extra_prompt ?? null },
      }));
      if (prompt) prompts.push(prompt);
    }
    return prompts;
  }

  /** The messages to send: the text in chunks, rewritten by each extension in turn. */
  async beforeSend(text: string, chunks: string[]): Promise<OutgoingReply[]> {
    let group = textGroup(chunks);
    const attachments = new ReplyAttachments();
    for (const step of this.selected) {
      const previous = group;
      group = await this.run(step, "before_send", text, previous, (checked) => {
        if (checked.messages === undefined) return { value: previous, shown: { kept: true } };
        const admitted = attachments.admit(checked.messages);
        return { value: admitted, shown: { messages: describeGroup(admitted) } };
      });
    }
    // Nothing is sent for a reply whose extension went away after it ran.
    for (const step of this.selected) {
      try {
        this.assertCurrent(step);
      } catch (error) {
        throw this.failed(step, "before_send", error, Date.now());
      }
    }
    return toOutgoing(group);
  }

  /**
   * One call of one extension. `accept` turns the checked result into what the chain goes on
   * with and what the monitor shows; a throw from it fails the reply like the call's own.
   */
  private async run<T>(
    step: SelectedExtension,
    phase: ReplyExtensionPhase,
    text: string,
    messages: ReplyMessage[],
    accept: (checked: ReplyExtensionResult) => { value: T; shown: Record<string, unknown> },
  ): Promise<T> {
    const started = Date.now();
    try {
      this.assertCurrent(step);
      const result = await this.invoke(step, phase, text, messages);
      this.assertCurrent(step);
      const { value, shown } = accept(this.check(phase, result));
      this.emit(step, phase, "ok", started, shown);
      return value;
    } catch (error) {
      throw this.failed(step, phase, error, started);
    }
  }

  /** Logs and shows the failure; returns the error that fails the reply. */
  private failed(
    step: SelectedExtension,
    phase: ReplyExtensionPhase,
    error: unknown,
    started: number,
  ): ReplyExtensionFailure {
    const name = step.extension.fullName;
    const reason = error instanceof Error ? error.message : String(error);
    this.emit(step, phase, "failed", started, { reason });
    this.deps.logger.warn(
      { replyId: this.reply.replyId, extension: name, phase, reason },
      `reply extension ${name} failed in ${phase}: ${reason}`,
    );
    return new ReplyExtensionFailure(
      `reply extension ${name} failed in ${phase}: ${reason}; nothing was sent`,
    );
  }

  private emit(
    step: SelectedExtension,
    phase: ReplyExtensionPhase,
    status: "ok" | "failed",
    started: number,
    fields: Record<string, unknown>,
  ): void {
    this.deps.monitor.emit({
      type: "reply.extension",
      replyId: this.reply.replyId,
      sessionId: this.chat.session_id,
      data: {
        extension: step.extension.fullName,
        phase,
        status,
        durationMs: Date.now() - started,
        parameters: step.parameters,
        ...fields,
      },
    });
  }

  /** Calls the handler with its own signal, aborted by its timeout or by the end of the turn. */
  private async invoke(
    step: SelectedExtension,
    phase: ReplyExtensionPhase,
    text: string,
    messages: ReplyMessage[],
  ): Promise<unknown> {
    const { extension } = step;
    const payload: ReplyExtensionPayload = {
      phase,
      reply_id: this.reply.replyId,
      call_id: this.reply.callId,
      session_id: this.chat.session_id,
      reply_message_id: this.reply.target.messageId,
      chat: { ...this.chat },
      // Copies: an extension changing what it was given never changes the host's group.
      parameters: structuredClone(step.parameters),
      text,
      messages: structuredClone(messages),
    };
    return callWithLimit(extension.timeoutMs, this.reply.signal, (signal) =>
      extension.invoke(payload, {
        signal,
        speech: this.deps.speech({ message: this.reply.target, replyId: this.reply.replyId, signal }),
      }),
    );
  }

  /** Throws when the extension was unloaded, disabled or reloaded since the reply selected it. */
  private assertCurrent(step: SelectedExtension): void {
    const current = this.deps.registry.get(step.extension.fullName);
    if (current === step.extension) return;
    throw new Error(
      `the extension was ${current ? "reloaded" : "unloaded or disabled"} while the reply was in flight`,
    );
  }
}

function replyChatOf(target: ChatMessage): ReplyChat {
  return {
    platform: target.platform,
    is_group_chat: target.chatType === "group",
    group_id: target.groupId ?? null,
    user_id: target.userId,
    session_id: target.sessionId,
    stream_id: target.sessionId,
  };
}
