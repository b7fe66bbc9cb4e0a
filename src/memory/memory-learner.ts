import { accessDenial } from "../chat/chat-access.ts";
import { formatMessageLine } from "../context/message-line.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { placeText } from "../prompts/place-text.ts";
import type { StoredMessage } from "../store/types.ts";
import type { MemorySettings } from "./config.ts";
import { type LearnOperation, parseLearnAnswer } from "./learn-answer.ts";
import { memoryLine } from "./memory-lines.ts";
import { MAX_MEMORY_CHARS, type MemoryService, sourcesOf } from "./memory-service.ts";
import { BackgroundLearner, type LearnerDeps } from "./pass-queue.ts";
import type { MemoryEntry, MemoryStore, MemorySubject } from "./types.ts";
import {
  changeableAt,
  groupSubjectOf,
  type MemoryPlace,
  placeOf,
  senderSubject,
  subjectNamed,
} from "./visibility.ts";

export interface MemoryLearnerDeps extends LearnerDeps {
  memory: MemoryService;
  store: MemoryStore;
  /** Whether `llm.models.memory` names a model: without one nothing is learned in the background. */
  hasModel: () => boolean;
  settings: () => MemorySettings;
}

/** Known memories shown to the model, so it updates rather than repeats them. */
const KNOWN_SHOWN = 40;
/** Known memories read per one shown: those that may not be changed in the chat are left out. */
const KNOWN_MARGIN = 2;

interface LearnedChange {
  added: Array<Pick<MemoryEntry, "id" | "subject" | "subjectName" | "content">>;
  updated: Array<{ id: number; content: string; previous: string }>;
  deleted: Array<{ id: number; content: string; reason?: string }>;
}

/**
 * Background learning: every `memory.learnEvery` messages a chat stores (from
 * people the access rules let in), one pass at a time reads the chat's new stretch with the
 * `memory` model task and applies the additions, updates, confirmations and deletions it
 * proposes to what is known about the people in it and the group. Where a chat was read up
 * to is stored, so a restart neither re-reads nor skips. Bounded per chat per day
 * (`memory.maxLearnCallsPerDay`). Never in the way of a reply: it runs after the fact.
 */
export class MemoryLearner extends BackgroundLearner {
  constructor(private readonly deps: MemoryLearnerDeps) {
    super(deps, "memory learning failed");
  }

  protected passEvery(): number | undefined {
    const settings = this.deps.settings();
    return settings.enabled && this.deps.hasModel() ? settings.learnEvery : undefined;
  }

  /** Reads one chat's new stretch and applies what the model proposes. */
  protected async pass(sessionId: string, stopping: AbortSignal): Promise<void> {
    const { deps } = this;
    const settings = deps.settings();
    if (!(await this.takePass(sessionId, settings.maxLearnCallsPerDay))) {
      deps.logger.debug({ sessionId }, "memory learning skipped: the chat's passes for today are used up");
      return;
    }
    const upTo = await deps.store.learnedUpTo(sessionId);
    const stretch = (await deps.history.messages({ sessionId, limit: settings.maxLearnMessages }))
      .filter((message) => message.rowId > upTo)
      .reverse();
    const newest = stretch.at(-1);
    const readable = await this.readable(stretch);
    const first = readable.find((message) => !message.fromSelf);
    if (newest === undefined || first === undefined) return;
    const place = placeOf(first);
    const known = await this.known(readable, place);
    const prompts = deps.prompts();
    const clock = deps.clock();
    const result = await this.ask(
      { task: "memory", sessionId, stopping },
      prompts.render("memory_learn", { bot_name: deps.botName() }),
      prompts.render("memory_learn_request", {
        place: placeText(prompts, {
          platform: place.platform,
          isGroup: place.groupId !== undefined,
          peerId: place.groupId ?? first.userId,
        }),
        known:
          known.length > 0
            ? known.map((entry) => memoryLine(entry, prompts, clock)).join("\n")
            : prompts.render("memory_known_none"),
        transcript: readable
          .map((message) => formatMessageLine(message, clock.time, { withId: true }))
          .join("\n"),
      }),
    );
    let change: LearnedChange = { added: [], updated: [], deleted: [] };
    try {
      const { operations, dropped } = parseLearnAnswer(result.text);
      if (dropped > 0)
        deps.logger.warn({ sessionId, dropped }, "memory model proposed changes of the wrong shape");
      change = await this.apply(operations, readable, known, place);
    } catch (error) {
      // Junk is not retried: the same stretch would cost the same call again.
      deps.logger.warn(
        { err: error, sessionId },
        "memory model answered something that is not the JSON asked for",
      );
    }
    await deps.store.setLearnedUpTo(sessionId, newest.rowId);
    deps.monitor.emit({
      type: "memory.learned",
      sessionId,
      data: {
        origin: "learned",
        ...change,
        model: `${result.provider}/${result.model}`,
        usage: result.usage,
        messages: readable.length,
      },
    });
  }

  /** Whether another pass fits the chat's daily bound (stored: restarts do not reset it); counts it when it does. */
  private async takePass(sessionId: string, perDay: number): Promise<boolean> {
    const day = this.deps.clock().date(Date.now());
    if ((await this.deps.store.passesOn(sessionId, day)) >= perDay) return false;
    await this.deps.store.countPass(sessionId, day);
    return true;
  }

  /**
   * What may be learned from: the bot's own messages (context) and those of members the access
   * rules let in, except what a member said before they asked to be forgotten and messages
   * their platform deleted (recalled).
   */
  private async readable(stretch: StoredMessage[]): Promise<StoredMessage[]> {
    const access = this.deps.access();
    const people = [...new Set(stretch.filter((m) => !m.fromSelf).map(senderSubject))];
    const forgotten = await this.deps.store.forgottenAt(people);
    const sessionId = stretch[0]?.sessionId ?? "";
    const deleted = await this.deps.store.deletedAmong(
      sessionId,
      stretch.map((message) => message.messageId),
    );
    return stretch.filter((message) => {
      if (deleted.has(message.messageId) || this.deps.recalled(message)) return false;
      if (message.fromSelf) return true;
      if (accessDenial(message, access) !== undefined) return false;
      const at = forgotten.get(senderSubject(message));
      return at === undefined || message.time > at;
    });
  }

  /**
   * What is already known about the people speaking and the group, of what may be changed here
   * (a private chat's facts never reach a group's pass, a group's never become a private chat's).
   */
  private async known(readable: ChatMessage[], place: MemoryPlace): Promise<MemoryEntry[]> {
    const people = [...new Set(readable.filter((m) => !m.fromSelf).map(senderSubject))];
    const group = groupSubjectOf(place);
    const subjects: MemorySubject[] = group === undefined ? people : [...people, group];
    const hits = await this.deps.store.search({ subjects, limit: KNOWN_SHOWN * KNOWN_MARGIN });
    return hits
      .map((hit) => hit.entry)
      .filter((entry) => changeableAt(entry, place))
      .slice(0, KNOWN_SHOWN);
  }

  /**
   * Applies the proposals that keep to the rules: facts about people who spoke in the stretch
   * or the group, sourced from its messages; changes only to memories the model was shown.
   */
  private async apply(
    operations: LearnOperation[],
    readable: ChatMessage[],
    known: MemoryEntry[],
    place: MemoryPlace,
  ): Promise<LearnedChange> {
    const change: LearnedChange = { added: [], updated: [], deleted: [] };
    const byId = new Map(readable.filter((m) => !m.fromSelf).map((message) => [message.messageId, message]));
    const speakers = new Set([...byId.values()].map((message) => message.userId));
    const shown = new Map(known.map((entry) => [entry.id, entry]));
    const sourcesNamed = (ids: Array<string | number> | undefined) =>
      sourcesOf((ids ?? []).map((id) => byId.get(String(id))).filter((m) => m !== undefined));
    for (const operation of operations) {
      if (operation.op === "add") {
        const about = String(operation.about);
        const subject = subjectNamed(place, about);
        const isGroup = subject !== undefined && subject === groupSubjectOf(place);
        if (subject === undefined || (!isGroup && !speakers.has(about))) continue;
        const own = isGroup ? [] : sourcesOf([...byId.values()].filter((m) => m.userId === about));
        const named = sourcesNamed(operation.source_ids);
        const sources = named.length > 0 ? named : own;
        if (sources.length === 0) continue;
        const subjectName = isGroup
          ? (place.groupId ?? about)
          : ([...byId.values()].findLast((m) => m.userId === about)?.senderName ?? about);
        const { entry, previous } = await this.deps.memory.remember({
          subject,
          subjectName,
          content: operation.content.slice(0, MAX_MEMORY_CHARS),
          origin: "learned",
          sessionId: place.sessionId,
          sources,
          place,
          silent: true,
        });
        if (previous === undefined) {
          change.added.push({ id: entry.id, subject, subjectName, content: entry.content });
        } else {
          change.updated.push({ id: entry.id, content: entry.content, previous });
        }
        continue;
      }
      const entry = shown.get(operation.id);
      if (!entry) continue;
      shown.delete(operation.id);
      if (operation.op === "delete") {
        if ((await this.deps.store.delete([entry.id])) > 0) {
          change.deleted.push({
            id: entry.id,
            content: entry.content,
            ...(operation.reason ? { reason: operation.reason } : {}),
          });
        }
        continue;
      }
      const content = operation.op === "update" ? operation.content.slice(0, MAX_MEMORY_CHARS) : undefined;
      const updated = await this.deps.store.update(entry.id, {
        ...(content === undefined ? {} : { content }),
        sources: sourcesNamed(operation.source_ids),
        confirmedAt: Date.now(),
      });
      if (updated && content !== undefined)
        change.updated.push({ id: entry.id, content, previous: entry.content });
    }
    return change;
  }
}
