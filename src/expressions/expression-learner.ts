import { accessDenial } from "../chat/chat-access.ts";
import { formatMessageLine } from "../context/message-line.ts";
import { BackgroundLearner, type LearnerDeps } from "../memory/pass-queue.ts";
import { senderSubject } from "../memory/visibility.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { placeText } from "../prompts/place-text.ts";
import type { GroupStore } from "../store/group-types.ts";
import type { MemoryStore } from "../store/memory-types.ts";
import type { StoredMessage } from "../store/types.ts";
import type { ExpressionSettings } from "./config.ts";
import { expressionLine } from "./expression-lines.ts";
import { parseExpressionAnswer } from "./learn-answer.ts";

export interface ExpressionLearnerDeps extends LearnerDeps {
  store: GroupStore;
  /** Who asked to be forgotten, and when: what they said before is never learned from. */
  forgotten: Pick<MemoryStore, "forgottenAt">;
  /** The model task passes use (`expressions`, else the replyer's), or undefined when neither has a model. */
  task: () => string | undefined;
  settings: () => ExpressionSettings;
}

/**
 * Learns each group's way of talking: every `chat.expressions.learnEvery` members' messages
 * in a group, one pass at a time reads its recent history (`maxMessages`) with what is known
 * already and has the model write the group's expressions, in-jokes and turns of phrase anew
 * (at most `maxEntries`, each with what it means there and an example). Bounded per group per
 * day (`maxLearnCallsPerDay`, stored, so restarts do not reset it). A list edited in the console
 * or forgotten while a pass ran is not overwritten by it.
 */
export class ExpressionLearner extends BackgroundLearner {
  constructor(private readonly deps: ExpressionLearnerDeps) {
    super(deps, "learning a group's expressions failed");
  }

  /** Only group messages count. */
  protected passEvery(message: ChatMessage): number | undefined {
    const settings = this.deps.settings();
    const learning =
      message.chatType === "group" &&
      settings.enabled &&
      settings.maxLearnCallsPerDay > 0 &&
      this.deps.task() !== undefined;
    return learning ? settings.learnEvery : undefined;
  }

  protected async pass(sessionId: string, stopping: AbortSignal): Promise<void> {
    const { deps } = this;
    const settings = deps.settings();
    const task = deps.task();
    if (task === undefined) return;
    const progress = await deps.store.progress(sessionId);
    const day = deps.clock().date(Date.now());
    if (progress.day === day && progress.passes >= settings.maxLearnCallsPerDay) {
      deps.logger.debug({ sessionId }, "expressions not learned: the group's passes for today are used up");
      return;
    }
    const stretch = await this.readable(
      (await deps.history.messages({ sessionId, limit: settings.maxMessages })).reverse(),
      progress.forgottenAt,
    );
    const first = stretch.find((message) => !message.fromSelf);
    if (first === undefined) return;
    await deps.store.countPass(sessionId, day);
    const known = await deps.store.expressions(sessionId);
    const prompts = deps.prompts();
    const clock = deps.clock();
    const result = await this.ask(
      { task, sessionId, stopping },
      prompts.render("expressions_learn", {
        bot_name: deps.botName(),
        max_entries: String(settings.maxEntries),
      }),
      prompts.render("expressions_learn_request", {
        place: placeText(prompts, {
          platform: first.platform,
          isGroup: true,
          peerId: first.groupId ?? "",
        }),
        known:
          known.length > 0
            ? known.map((entry) => expressionLine(entry, prompts)).join("\n")
            : prompts.render("expressions_known_none"),
        transcript: stretch.map((message) => formatMessageLine(message, clock.time)).join("\n"),
      }),
    );
    let parsed: ReturnType<typeof parseExpressionAnswer>;
    try {
      parsed = parseExpressionAnswer(result.text);
    } catch (error) {
      // Junk is not retried: the same history would cost the same call again.
      deps.logger.warn(
        { err: error, sessionId },
        "the expressions model answered something that is not the JSON asked for",
      );
      return;
    }
    if (parsed.dropped > 0)
      deps.logger.warn(
        { sessionId, dropped: parsed.dropped },
        "the expressions model wrote entries of the wrong shape",
      );
    const entries = parsed.entries.slice(0, settings.maxEntries);
    if (!(await deps.store.replaceLearned(sessionId, entries, progress.editedAt, Date.now()))) {
      deps.logger.info(
        { sessionId },
        "learned expressions dropped: the group's list was edited or forgotten meanwhile",
      );
      return;
    }
    deps.monitor.emit({
      type: "expressions.learned",
      sessionId,
      data: {
        expressions: entries,
        previous: known.length,
        model: `${result.provider}/${result.model}`,
        usage: result.usage,
        messages: stretch.length,
      },
    });
  }

  /**
   * What may be learned from: the bot's own messages (context) and those of members the access
   * rules let in, said after the group's last `/forget group`, neither recalled nor said before
   * their sender asked to be forgotten; notices (pokes) are not talk.
   */
  private async readable(stretch: StoredMessage[], groupForgottenAt: number): Promise<StoredMessage[]> {
    const access = this.deps.access();
    const people = [...new Set(stretch.filter((m) => !m.fromSelf).map(senderSubject))];
    const forgotten = await this.deps.forgotten.forgottenAt(people);
    return stretch.filter((message) => {
      if (message.time <= groupForgottenAt || this.deps.recalled(message) || message.notice !== undefined)
        return false;
      if (message.fromSelf) return true;
      if (accessDenial(message, access) !== undefined) return false;
      const at = forgotten.get(senderSubject(message));
      return at === undefined || message.time > at;
    });
  }
}
