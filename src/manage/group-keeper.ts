import type { GroupActions, JoinRequest, MemberJoined } from "../adapters/types.ts";
import type { Arrival } from "../chat/chat-service.ts";
import type { JoinRequestMode, ManageSettings, WelcomeSettings } from "../chat/manage-config.ts";
import type { StageStep } from "../chat/stage-path.ts";
import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import { formatSessionId } from "../message/session-id.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { isAdmin } from "../plugins/admins.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import { clip } from "../util/values.ts";
import type { GroupPlace, GroupStanding } from "./group-standing.ts";
import {
  type PendingDecision,
  PendingDecisions,
  type PendingJoin,
  type PendingKick,
} from "./pending-decisions.ts";
import { decisionWord, plainWords } from "./replies.ts";

/** What keeping one group in order reads of the config, per group (`chat.groups."<id>"` over `chat.*`). */
export interface GroupManageSettings {
  welcome: WelcomeSettings;
  joinRequests: JoinRequestMode;
  manage: ManageSettings;
  /** The persona welcomes are worded in. */
  persona: string;
  /** `bot.admins`. */
  admins: readonly string[];
}

export interface GroupKeeperDeps {
  standing: GroupStanding;
  settings: (groupId: string) => GroupManageSettings;
  templates: () => PromptTemplates;
  /** Sends to a group through the outbox (stored and journalled like every send). */
  send: (origin: SessionOrigin, segments: Segment[]) => Promise<ChatMessage>;
  /** Words welcomes (replyer) and reads join requests (planner). */
  llm: () => { generate(request: LlmRequest): Promise<LlmResult> };
  /** The governor's word on an unasked message in the chat: why not, or undefined to send it. */
  governor: (sessionId: string, text: string) => Promise<string | undefined>;
  monitor: Monitor;
  logger: Logger;
}

/** How long a kick waits for its requester's confirmation. */
export const KICK_CONFIRM_MS = 60_000;
/** How long a join request announced for review waits for an admin (QQ keeps it open longer). */
const JOIN_REVIEW_MS = 24 * 60 * 60_000;
/** A member joining again within this long is not welcomed again (a platform reporting twice). */
const WELCOME_ONCE_MS = 10 * 60_000;
const MAX_WELCOMED = 1_000;
/** The longest applicant's answer shown and judged. */
const MAX_ANSWER_CHARS = 500;
const MODEL_TIMEOUT_MS = 20_000;

/** One management step, for the timeline and the log. */
export interface ManageAction {
  action: string;
  place: GroupPlace;
  requestedBy?: string;
  target?: string;
  dryRun: boolean;
  done: boolean;
  detail?: Record<string, unknown>;
  replyId?: string;
}

/**
 * Keeps groups in order where the bot is an admin (docs/manage.md): the management tools act
 * through it (manage-tools.ts), kicks wait here for their requester's confirmation, join
 * requests are announced, reviewed or decided, new members welcomed. Every step is on the
 * timeline (`manage.action`) and in the log, with who asked; in dry run (`manage.dryRun`) the
 * platform is never asked to act.
 */
export class GroupKeeper {
  readonly pending = new PendingDecisions();
  readonly #welcomed = new Map<string, number>();

  constructor(readonly deps: GroupKeeperDeps) {}

  get standing(): GroupStanding {
    return this.deps.standing;
  }

  settingsOf(place: GroupPlace): GroupManageSettings {
    return this.deps.settings(place.groupId);
  }

  prompts(): PromptTemplates {
    return this.deps.templates();
  }

  /** On the timeline and in the log. */
  record(step: ManageAction): void {
    const { place, detail, replyId, ...fields } = step;
    const sessionId = sessionOfGroup(place);
    const data = { ...fields, groupId: place.groupId, ...detail };
    this.deps.monitor.emit({
      type: "manage.action",
      sessionId,
      ...(replyId ? { replyId } : {}),
      data,
    });
    // What members wrote (an applicant's answer, a notice) stays out of the log, as message texts do.
    const {
      answer: _answer,
      text: _text,
      recommendation: _recommendation,
      ...logged
    } = data as Record<string, unknown>;
    this.deps.logger.info(
      { sessionId, ...logged },
      step.dryRun ? `dry run: would have done ${step.action}` : `group management: ${step.action}`,
    );
  }

  /** Sends text (and leading mentions) to the group; a failed send is logged, never thrown. */
  async say(place: GroupPlace, text: string, mention?: string): Promise<ChatMessage | undefined> {
    const segments: Segment[] = mention
      ? [
          { type: "at", data: { qq: mention } },
          { type: "text", data: { text: ` ${text}` } },
        ]
      : [{ type: "text", data: { text } }];
    try {
      return await this.deps.send(originOf(place, mention ?? place.selfId), segments);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, groupId: place.groupId },
        "could not send a group management message",
      );
      return undefined;
    }
  }

  // ── kicks ──────────────────────────────────────────────────────────────────────────────

  /** Opens a kick waiting for its requester's confirmation (one pending kick per requester and chat). */
  askKick(kick: Omit<PendingKick, "id" | "kind">): PendingKick {
    const earlier = this.pending.find(
      (waiting) =>
        waiting.kind === "kick" &&
        waiting.sessionId === kick.sessionId &&
        waiting.requesterId === kick.requesterId,
    );
    if (earlier) this.pending.take(earlier.id);
    return this.pending.add<PendingKick>({ ...kick, kind: "kick" }, KICK_CONFIRM_MS, (lapsed) =>
      this.record({
        action: "kick.expired",
        place: lapsed.place,
        requestedBy: lapsed.requesterId,
        target: lapsed.targetId,
        dryRun: this.settingsOf(lapsed.place).manage.dryRun,
        done: false,
        replyId: lapsed.replyId,
      }),
    );
  }

  // ── the message stage: confirmations and admins' answers ────────────────────────────────

  /**
   * The `manage` stage (before the commands): the requester's "确认"/"取消" of their kick, an
   * admin's reply "同意"/"拒绝" to a join announcement, and `/approve <id>` / `/deny <id>` of
   * either, are answered here and go no further. Synchronous for chats with nothing waiting.
   */
  stage(arrival: Arrival): StageStep<Arrival> | Promise<StageStep<Arrival>> {
    const { message } = arrival;
    if (message.chatType !== "group" || message.fromSelf || !this.pending.inSession(message.sessionId))
      return { go: arrival };
    return this.answer(arrival);
  }

  private async answer(arrival: Arrival): Promise<StageStep<Arrival>> {
    const { message } = arrival;
    const words = plainWords(message);
    if (words === undefined) return { go: arrival };
    const command = /^\/(approve|deny)\s+([0-9a-f]{6})$/i.exec(words);
    if (command) {
      const waiting = this.pending.get(command[2]!);
      // Not ours (a plugin tool's approval): the host's /approve answers it.
      if (!waiting || waiting.sessionId !== message.sessionId) return { go: arrival };
      await this.decide(waiting, command[1]!.toLowerCase() === "approve", message);
      return { stop: "answered a group management request" };
    }
    const yes = decisionWord(words);
    if (yes === undefined) return { go: arrival };
    const repliedTo = message.segments.find((segment) => segment.type === "reply")?.data.id;
    const waiting =
      (repliedTo !== undefined
        ? this.pending.find(
            (decision) =>
              decision.kind === "join" &&
              decision.sessionId === message.sessionId &&
              decision.announcementId === String(repliedTo),
          )
        : undefined) ??
      this.pending.find(
        (decision) =>
          decision.kind === "kick" &&
          decision.sessionId === message.sessionId &&
          decision.requesterId === message.userId,
      );
    if (!waiting) return { go: arrival };
    await this.decide(waiting, yes, message);
    return { stop: "answered a group management request" };
  }

  /** A person's yes or no to a waiting decision: only its requester (kick), an admin (join) or bot.admins. */
  private async decide(waiting: PendingDecision, yes: boolean, by: ChatMessage): Promise<void> {
    const prompts = this.prompts();
    const mayDecide =
      isAdmin(by, this.settingsOf(waiting.place).admins) ||
      (waiting.kind === "kick" ? by.userId === waiting.requesterId : await this.standing.mayManage(by));
    if (!mayDecide) {
      await this.say(waiting.place, prompts.render("manage_not_yours"), by.userId);
      return;
    }
    // Taken once: a second "确认" finds nothing and does nothing.
    if (!this.pending.take(waiting.id)) return;
    if (waiting.kind === "kick") await this.finishKick(waiting, yes, by);
    else await this.finishJoin(waiting, yes, by.senderName, by.userId);
  }

  private async finishKick(kick: PendingKick, confirmed: boolean, by: ChatMessage): Promise<void> {
    const prompts = this.prompts();
    const { place } = kick;
    const dryRun = this.settingsOf(place).manage.dryRun;
    const step = {
      place,
      requestedBy: kick.requesterId,
      target: kick.targetId,
      dryRun,
      replyId: kick.replyId,
      detail: { reason: kick.reason, confirmedBy: by.userId },
    };
    if (!confirmed) {
      this.record({ ...step, action: "kick.cancelled", done: false });
      await this.say(place, prompts.render("manage_kick_cancelled", { name: kick.targetName }));
      return;
    }
    const kicked = prompts.render("manage_kicked", { name: kick.targetName });
    if (dryRun) {
      this.record({ ...step, action: "kick", done: false });
      await this.say(place, `${kicked}${prompts.render("manage_dry_run_note")}`);
      return;
    }
    const error = await attempt(() =>
      this.actionsOf(place)?.kick?.(place.selfId, place.groupId, kick.targetId),
    );
    this.record({
      ...step,
      action: "kick",
      done: error === undefined,
      ...(error ? { detail: { ...step.detail, error } } : {}),
    });
    await this.say(
      place,
      error === undefined ? kicked : prompts.render("manage_kick_failed", { name: kick.targetName, error }),
    );
  }

  // ── join requests ──────────────────────────────────────────────────────────────────────

  /** A request to join a group: handled by the group's `joinRequests` mode, where the bot is an admin. */
  async joinRequested(request: JoinRequest, platform: string): Promise<void> {
    const place: GroupPlace = {
      platform,
      adapterId: request.adapterId,
      selfId: request.selfId,
      groupId: request.groupId,
    };
    const settings = this.settingsOf(place);
    const mode = settings.joinRequests;
    if (mode === "off") return;
    if (!(await this.standing.botIsAdmin(place))) {
      this.deps.logger.info(
        { groupId: place.groupId, userId: request.userId },
        "join request left alone: the bot is not an admin of the group",
      );
      return;
    }
    const prompts = this.prompts();
    const answer = clip(request.comment.trim(), MAX_ANSWER_CHARS) || "—";
    const applicant = `${request.userId}`;
    const step = { place, target: request.userId, dryRun: settings.manage.dryRun, detail: { answer, mode } };
    const canAnswer = this.actionsOf(place)?.answerJoinRequest !== undefined;
    if (mode === "notify" || !canAnswer) {
      const sent = await this.say(place, prompts.render("manage_join_notify", { applicant, answer }));
      this.record({ ...step, action: "join.notified", done: sent !== undefined });
      return;
    }
    const verdict = await this.judge(settings.manage.rules, answer, sessionOfGroup(place));
    if (mode === "auto" && verdict !== undefined) {
      const decided = verdict.approve ? "join.approved" : "join.rejected";
      const error = settings.manage.dryRun
        ? undefined
        : await attempt(() =>
            this.actionsOf(place)?.answerJoinRequest?.(
              request.selfId,
              request.flag,
              verdict.approve,
              verdict.reason,
            ),
          );
      this.record({
        ...step,
        action: decided,
        requestedBy: "rules",
        done: !settings.manage.dryRun && error === undefined,
        detail: { ...step.detail, reason: verdict.reason, ...(error ? { error } : {}) },
      });
      return;
    }
    // review, or auto where the rules could not decide: an admin does.
    const waiting = this.pending.add<PendingJoin>(
      { kind: "join", sessionId: sessionOfGroup(place), place, request, applicant },
      JOIN_REVIEW_MS,
      (lapsed) => this.record({ ...step, place: lapsed.place, action: "join.expired", done: false }),
    );
    const recommendation = verdict
      ? `${verdict.approve ? "APPROVE" : "REJECT"} — ${verdict.reason}`
      : prompts.render("manage_join_no_verdict");
    const sent = await this.say(
      place,
      prompts.render("manage_join_review", { applicant, answer, recommendation, id: waiting.id }),
    );
    if (sent) waiting.announcementId = sent.messageId;
    this.record({
      ...step,
      action: "join.review",
      done: sent !== undefined,
      detail: { ...step.detail, id: waiting.id, recommendation },
    });
  }

  private async finishJoin(join: PendingJoin, approve: boolean, byName: string, byId: string): Promise<void> {
    const prompts = this.prompts();
    const { place, request } = join;
    const dryRun = this.settingsOf(place).manage.dryRun;
    const error = dryRun
      ? undefined
      : await attempt(() =>
          this.actionsOf(place)?.answerJoinRequest?.(request.selfId, request.flag, approve),
        );
    this.record({
      action: approve ? "join.approved" : "join.rejected",
      place,
      requestedBy: byId,
      target: request.userId,
      dryRun,
      done: !dryRun && error === undefined,
      ...(error ? { detail: { error } } : {}),
    });
    const text = prompts.render(approve ? "manage_join_approved" : "manage_join_rejected", {
      applicant: join.applicant,
      by: byName,
    });
    await this.say(
      place,
      error !== undefined
        ? `${join.applicant}: ${prompts.render("result_manage_failed", { error })}`
        : dryRun
          ? `${text}${prompts.render("manage_dry_run_note")}`
          : text,
    );
  }

  /** The planner model's reading of an answer against the rules; undefined without rules or an answer. */
  private async judge(
    rules: string,
    answer: string,
    sessionId: string,
  ): Promise<{ approve: boolean; reason: string } | undefined> {
    if (rules.trim() === "") return undefined;
    try {
      const result = await this.deps.llm().generate({
        task: "planner",
        messages: [
          { role: "user", content: this.prompts().render("manage_join_verdict", { rules, answer }) },
        ],
        maxOutputTokens: 200,
        signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
        sessionId,
      });
      const [first = "", ...rest] = result.text.trim().split("\n");
      const word = first.trim().toUpperCase();
      const reason = clip(rest.join(" ").trim() || first.replace(/^\W*(APPROVE|REJECT)\W*/i, ""), 200);
      if (word.startsWith("APPROVE")) return { approve: true, reason };
      if (word.startsWith("REJECT")) return { approve: false, reason };
      this.deps.logger.info({ sessionId, answer: clip(result.text, 80) }, "join request verdict unclear");
      return undefined;
    } catch (error) {
      this.deps.logger.info(
        { sessionId, reason: error instanceof Error ? error.message : String(error) },
        "no model read the join request: an admin decides",
      );
      return undefined;
    }
  }

  // ── welcomes ───────────────────────────────────────────────────────────────────────────

  /** A member joined: welcomed once, in the persona's words, within the governor's caps. */
  async memberJoined(event: MemberJoined, platform: string): Promise<void> {
    const place: GroupPlace = {
      platform,
      adapterId: event.adapterId,
      selfId: event.selfId,
      groupId: event.groupId,
    };
    if (event.userId === event.selfId) return;
    const { welcome, persona } = this.settingsOf(place);
    if (!welcome.enabled) return;
    const key = `${event.adapterId}\u0000${event.selfId}\u0000${event.groupId}\u0000${event.userId}`;
    const now = Date.now();
    const before = this.#welcomed.get(key);
    if (before !== undefined && now - before < WELCOME_ONCE_MS) return;
    this.#welcomed.delete(key);
    this.#welcomed.set(key, now);
    if (this.#welcomed.size > MAX_WELCOMED) this.#welcomed.delete(this.#welcomed.keys().next().value!);
    const sessionId = sessionOfGroup(place);
    const name = (await this.standing.memberOf(place, event.userId))?.name ?? event.userId;
    const text =
      (await this.wordWelcome(name, welcome.text, persona, sessionId)) ??
      welcome.text ??
      this.prompts().render("manage_welcome", { name });
    const held = await this.deps.governor(sessionId, text);
    const step = { place, target: event.userId, dryRun: false };
    if (held !== undefined) {
      this.record({ ...step, action: "welcome", done: false, detail: { held } });
      return;
    }
    const sent = await this.say(place, text, event.userId);
    this.record({ ...step, action: "welcome", done: sent !== undefined });
  }

  private async wordWelcome(
    name: string,
    guidance: string | undefined,
    persona: string,
    sessionId: string,
  ): Promise<string | undefined> {
    try {
      const result = await this.deps.llm().generate({
        task: "replyer",
        messages: [
          { role: "system", content: persona },
          {
            role: "user",
            content: this.prompts().render("manage_welcome_request", { name, text: guidance ?? "" }),
          },
        ],
        maxOutputTokens: 200,
        signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
        sessionId,
      });
      const text = clip(result.text.trim(), 500);
      return text === "" ? undefined : text;
    } catch (error) {
      this.deps.logger.info(
        { sessionId, reason: error instanceof Error ? error.message : String(error) },
        "welcome sent unworded: the replyer model did not word it",
      );
      return undefined;
    }
  }

  actionsOf(place: GroupPlace): GroupActions | undefined {
    return this.standing.actionsOf(place);
  }

  stop(): void {
    this.pending.clear();
  }
}

/** Runs a platform action; resolves with the error's message, or undefined when it was done. */
export async function attempt(action: () => Promise<void> | undefined): Promise<string | undefined> {
  try {
    const running = action();
    if (running === undefined) return "the platform cannot do this";
    await running;
    return undefined;
  } catch (error) {
    return clip(error instanceof Error ? error.message : String(error), 200);
  }
}

export function sessionOfGroup(place: GroupPlace): string {
  return formatSessionId({
    platform: place.platform,
    selfId: place.selfId,
    chatType: "group",
    peerId: place.groupId,
  });
}

function originOf(place: GroupPlace, userId: string): SessionOrigin {
  return {
    platform: place.platform,
    adapterId: place.adapterId,
    selfId: place.selfId,
    sessionId: sessionOfGroup(place),
    chatType: "group",
    groupId: place.groupId,
    userId,
  };
}
