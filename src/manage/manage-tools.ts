import type { GroupActions } from "../adapters/types.ts";
import type { BuiltinCall, BuiltinTool, ToolRun } from "../agent/builtin-tools.ts";
import type { Batch } from "../chat/batch.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { isAdmin } from "../plugins/admins.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { attempt, type GroupKeeper } from "./group-keeper.ts";
import { type GroupPlace, placeOf } from "./group-standing.ts";

export const MUTE_MEMBER_TOOL = "mute_member";
export const KICK_MEMBER_TOOL = "kick_member";
export const SET_ESSENCE_TOOL = "set_essence";
export const GROUP_NOTICE_TOOL = "group_notice";

/** The longest mute the tool gives: QQ's own limit, 30 days. */
export const MAX_MUTE_MINUTES = 30 * 24 * 60;
const MAX_REASON_CHARS = 200;
const MAX_NOTICE_CHARS = 2_000;
const MAX_USER_ID_CHARS = 64;

type ToolDefinition = Pick<BuiltinTool, "spec" | "offered" | "run" | "withheld">;

/** Who asked in a turn and where, when every asker may have the group managed and the bot can. */
type TurnAccess =
  | { ok: true; place: GroupPlace; actions: GroupActions; askers: ChatMessage[] }
  | { ok: false; why: "asker" | "place" };

/**
 * The management tools (docs/manage.md). Offered only in a group turn whose every asker (the
 * senders of its triggering messages) is the group's owner, an admin or one of `bot.admins`,
 * where the bot is a group admin and its adapter can do the tool's action; a call is checked
 * again when it runs (the turn may have taken in someone else's message), and refused in its
 * result otherwise. `kick_member` only asks its requester to confirm; the kick waits in the
 * keeper for their "确认".
 */
export function manageTools(keeper: GroupKeeper): ToolDefinition[] {
  // One reading per batch: every round of a turn offers the tools from the same answer.
  const accessOf = new WeakMap<Batch, Promise<TurnAccess>>();
  const access = (batch: Batch) => {
    let known = accessOf.get(batch);
    if (known === undefined) {
      known = readAccess(keeper, batch);
      accessOf.set(batch, known);
    }
    return known;
  };
  const offeredWhen =
    (can: (actions: GroupActions, place: GroupPlace) => boolean) => async (batch: Batch) => {
      const found = await access(batch);
      return found.ok && can(found.actions, found.place);
    };
  /** Runs a call with its access checked again on the turn's current batch. */
  const checked =
    (
      can: (actions: GroupActions) => boolean,
      run: (
        args: Record<string, unknown>,
        call: BuiltinCall,
        found: Extract<TurnAccess, { ok: true }>,
      ) => Promise<ToolRun>,
    ) =>
    async (args: Record<string, unknown>, call: BuiltinCall): Promise<ToolRun> => {
      const found = await access(call.turn.batch);
      if (!found.ok || !can(found.actions)) return withheld(call);
      return run(args, call, found);
    };
  /** A call in a turn the tools were kept from: refused in its answer, saying why. */
  const withheld = async (call: BuiltinCall): Promise<ToolRun> => {
    const found = await access(call.turn.batch);
    const prompts = call.turn.settings.prompts;
    const why = !found.ok && found.why === "asker" ? "manage_reason_asker" : "manage_reason_not_admin";
    return refused(prompts, prompts.render(why));
  };
  return [
    {
      spec: (texts) => muteSpec(texts.prompts),
      offered: (round) => offeredWhen((actions) => actions.mute !== undefined)(round.batch),
      run: checked(
        (actions) => actions.mute !== undefined,
        (args, call, found) => mute(keeper, args, call, found),
      ),
      withheld,
    },
    {
      spec: (texts) => kickSpec(texts.prompts),
      offered: (round) => offeredWhen((actions) => actions.kick !== undefined)(round.batch),
      run: checked(
        (actions) => actions.kick !== undefined,
        (args, call, found) => askKick(keeper, args, call, found),
      ),
      withheld,
    },
    {
      spec: (texts) => essenceSpec(texts.prompts),
      offered: (round) => offeredWhen((actions) => actions.setEssence !== undefined)(round.batch),
      run: checked(
        (actions) => actions.setEssence !== undefined,
        (args, call, found) => setEssence(keeper, args, call, found),
      ),
      withheld,
    },
    {
      spec: (texts) => noticeSpec(texts.prompts),
      offered: (round) =>
        offeredWhen(
          (actions, place) => actions.postNotice !== undefined && keeper.settingsOf(place).manage.notices,
        )(round.batch),
      run: checked(
        (actions) => actions.postNotice !== undefined,
        (args, call, found) => postNotice(keeper, args, call, found),
      ),
      withheld,
    },
  ];
}

async function readAccess(keeper: GroupKeeper, batch: Batch): Promise<TurnAccess> {
  if (batch.kind !== "realtime" || batch.unasked) return { ok: false, why: "asker" };
  const first = batch.messages.find((message) => !message.fromSelf);
  const place = first && placeOf(first);
  const actions = place && keeper.actionsOf(place);
  if (!place || !actions || !keeper.settingsOf(place).manage.tools) return { ok: false, why: "place" };
  const triggers = new Set(batch.triggerIds);
  const askers = batch.messages.filter((message) => triggers.has(message.messageId) && !message.fromSelf);
  if (askers.length === 0) return { ok: false, why: "asker" };
  for (const asker of askers)
    if (!(await keeper.standing.mayManage(asker))) return { ok: false, why: "asker" };
  if (!(await keeper.standing.botIsAdmin(place))) return { ok: false, why: "place" };
  return { ok: true, place, actions, askers };
}

function refused(prompts: PromptTemplates, reason: string): ToolRun {
  return { output: { output: prompts.render("result_manage_refused", { reason }), isError: true } };
}

/** The member a call names: a number, or the name of someone mentioned in or sending the turn's messages. */
async function memberNamed(
  call: BuiltinCall,
  given: string,
): Promise<{ userId: string; name: string } | undefined> {
  const wanted = given.trim().replace(/^@/, "");
  const { batch } = call.turn;
  const mentioned = batch.messages.flatMap((message) =>
    message.segments.flatMap((segment) =>
      segment.type === "at" && segment.data.qq !== message.selfId && segment.data.qq !== "all"
        ? [{ userId: String(segment.data.qq), name: String(segment.data.name ?? "").replace(/^@/, "") }]
        : [],
    ),
  );
  let userId: string | undefined;
  if (/^\d{4,20}$/.test(wanted)) userId = wanted;
  else {
    for (const mention of mentioned) {
      const name = mention.name || (await call.turn.nameOf(mention.userId));
      if (name === wanted) userId = mention.userId;
    }
    userId ??= batch.messages.findLast(
      (message) => message.senderName === wanted && !message.fromSelf,
    )?.userId;
  }
  if (userId === undefined) return undefined;
  const name = (await call.turn.nameOf(userId)) ?? mentioned.find((m) => m.userId === userId)?.name;
  return { userId, name: name ? `${name}(${userId})` : userId };
}

/** Whether a member must never be muted or removed: the bot, bot.admins, the group's owner and admins. */
async function protectedMember(keeper: GroupKeeper, place: GroupPlace, origin: ChatMessage, userId: string) {
  if (userId === place.selfId) return true;
  if (isAdmin({ ...origin, userId }, keeper.settingsOf(place).admins)) return true;
  const role = await keeper.standing.roleOf(place, userId);
  return role === "owner" || role === "admin";
}

async function target(
  keeper: GroupKeeper,
  args: Record<string, unknown>,
  call: BuiltinCall,
  found: Extract<TurnAccess, { ok: true }>,
): Promise<{ userId: string; name: string } | ToolRun> {
  const prompts = call.turn.settings.prompts;
  const given = String(args.user_id);
  const member = await memberNamed(call, given);
  if (!member) return refused(prompts, prompts.render("manage_reason_unknown_member", { name: given }));
  if (await protectedMember(keeper, found.place, found.askers[0]!, member.userId))
    return refused(prompts, prompts.render("manage_reason_protected", { name: member.name }));
  return member;
}

const requesters = (found: Extract<TurnAccess, { ok: true }>) =>
  [...new Set(found.askers.map((asker) => asker.userId))].join(",");

async function mute(
  keeper: GroupKeeper,
  args: Record<string, unknown>,
  call: BuiltinCall,
  found: Extract<TurnAccess, { ok: true }>,
): Promise<ToolRun> {
  const prompts = call.turn.settings.prompts;
  const member = await target(keeper, args, call, found);
  if ("output" in member) return member;
  const minutes = args.minutes as number;
  const { place } = found;
  const dryRun = keeper.settingsOf(place).manage.dryRun;
  const step = {
    action: minutes === 0 ? "unmute" : "mute",
    place,
    requestedBy: requesters(found),
    target: member.userId,
    dryRun,
    replyId: call.turn.replyId,
    detail: { minutes },
  };
  if (dryRun) {
    keeper.record({ ...step, done: false });
    return dryRunResult(
      prompts,
      `${step.action} ${member.name}${minutes > 0 ? ` for ${minutes} minutes` : ""}`,
    );
  }
  const error = await attempt(() =>
    found.actions.mute?.(place.selfId, place.groupId, member.userId, minutes * 60),
  );
  keeper.record({ ...step, done: error === undefined, ...(error ? { detail: { minutes, error } } : {}) });
  if (error) return { output: { output: prompts.render("result_manage_failed", { error }), isError: true } };
  const output =
    minutes === 0
      ? prompts.render("result_member_unmuted", { name: member.name })
      : prompts.render("result_member_muted", { name: member.name, minutes: String(minutes) });
  return { output: { output } };
}

/** Asks the requester to confirm in the chat; the kick itself waits for their answer (the turn ends here). */
async function askKick(
  keeper: GroupKeeper,
  args: Record<string, unknown>,
  call: BuiltinCall,
  found: Extract<TurnAccess, { ok: true }>,
): Promise<ToolRun> {
  const { turn } = call;
  const prompts = turn.settings.prompts;
  const member = await target(keeper, args, call, found);
  if ("output" in member) return member;
  const requester = found.askers.at(-1)!;
  const reason = String(args.reason ?? "").trim() || "—";
  const kick = keeper.askKick({
    sessionId: turn.batch.sessionId,
    place: found.place,
    requesterId: requester.userId,
    requesterName: requester.senderName,
    targetId: member.userId,
    targetName: member.name,
    reason,
    replyId: turn.replyId,
  });
  const question = prompts.render("manage_kick_confirm", { name: member.name, reason, id: kick.id });
  const sent = await turn.replies.sendMessage(turn.origin(), [
    { type: "at", data: { qq: requester.userId } },
    { type: "text", data: { text: ` ${question}` } },
  ]);
  call.plugins.sentByTools.push(sent.messageId);
  keeper.record({
    action: "kick.asked",
    place: found.place,
    requestedBy: requester.userId,
    target: member.userId,
    dryRun: keeper.settingsOf(found.place).manage.dryRun,
    done: false,
    replyId: turn.replyId,
    detail: { id: kick.id, reason },
  });
  const output = prompts.render("result_kick_asked", { requester: requester.senderName, name: member.name });
  return {
    output: { output },
    outcome: { status: "replied", reason: `kick_member: asked ${requester.userId} to confirm` },
  };
}

async function setEssence(
  keeper: GroupKeeper,
  args: Record<string, unknown>,
  call: BuiltinCall,
  found: Extract<TurnAccess, { ok: true }>,
): Promise<ToolRun> {
  const prompts = call.turn.settings.prompts;
  const message = await call.turn.findTarget(String(args.message));
  if (!message) return call.invalid(`no message with msg_id ${String(args.message)} in this chat`);
  const { place } = found;
  const dryRun = keeper.settingsOf(place).manage.dryRun;
  const step = {
    action: "essence",
    place,
    requestedBy: requesters(found),
    target: message.messageId,
    dryRun,
    replyId: call.turn.replyId,
  };
  if (dryRun) {
    keeper.record({ ...step, done: false });
    return dryRunResult(prompts, `set message ${message.messageId} as essence`);
  }
  const error = await attempt(() => found.actions.setEssence?.(place.selfId, message.messageId));
  keeper.record({ ...step, done: error === undefined, ...(error ? { detail: { error } } : {}) });
  if (error) return { output: { output: prompts.render("result_manage_failed", { error }), isError: true } };
  return { output: { output: prompts.render("result_essence_set") } };
}

async function postNotice(
  keeper: GroupKeeper,
  args: Record<string, unknown>,
  call: BuiltinCall,
  found: Extract<TurnAccess, { ok: true }>,
): Promise<ToolRun> {
  const prompts = call.turn.settings.prompts;
  const { place } = found;
  const settings = keeper.settingsOf(place).manage;
  if (!settings.notices) return refused(prompts, prompts.render("manage_reason_asker"));
  const text = String(args.text).trim();
  if (text === "") return call.invalid("text must not be empty");
  const step = {
    action: "notice",
    place,
    requestedBy: requesters(found),
    dryRun: settings.dryRun,
    replyId: call.turn.replyId,
    detail: { text },
  };
  if (settings.dryRun) {
    keeper.record({ ...step, done: false });
    return dryRunResult(prompts, `post the group notice "${text}"`);
  }
  const error = await attempt(() => found.actions.postNotice?.(place.selfId, place.groupId, text));
  keeper.record({ ...step, done: error === undefined, ...(error ? { detail: { text, error } } : {}) });
  if (error) return { output: { output: prompts.render("result_manage_failed", { error }), isError: true } };
  return { output: { output: prompts.render("result_notice_posted") } };
}

function dryRunResult(prompts: PromptTemplates, action: string): ToolRun {
  return { output: { output: prompts.render("result_manage_dry_run", { action }) } };
}

// ── declarations ───────────────────────────────────────────────────────────────────────

const userIdParameter = (prompts: PromptTemplates) => ({
  type: "string",
  minLength: 1,
  maxLength: MAX_USER_ID_CHARS,
  description: prompts.render("tool_manage_user_id"),
});

function muteSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: MUTE_MEMBER_TOOL,
    description: prompts.render("tool_mute_member"),
    parameters: {
      type: "object",
      properties: {
        user_id: userIdParameter(prompts),
        minutes: {
          type: "integer",
          minimum: 0,
          maximum: MAX_MUTE_MINUTES,
          description: prompts.render("tool_mute_member_minutes", { max_minutes: String(MAX_MUTE_MINUTES) }),
        },
      },
      required: ["user_id", "minutes"],
      additionalProperties: false,
    },
  };
}

function kickSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: KICK_MEMBER_TOOL,
    description: prompts.render("tool_kick_member"),
    parameters: {
      type: "object",
      properties: {
        user_id: userIdParameter(prompts),
        reason: {
          type: "string",
          maxLength: MAX_REASON_CHARS,
          description: prompts.render("tool_kick_member_reason"),
        },
      },
      required: ["user_id", "reason"],
      additionalProperties: false,
    },
  };
}

function essenceSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: SET_ESSENCE_TOOL,
    description: prompts.render("tool_set_essence"),
    parameters: {
      type: "object",
      properties: {
        message: {
          type: "string",
          minLength: 1,
          maxLength: 64,
          description: prompts.render("tool_set_essence_message"),
        },
      },
      required: ["message"],
      additionalProperties: false,
    },
  };
}

function noticeSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: GROUP_NOTICE_TOOL,
    description: prompts.render("tool_group_notice"),
    parameters: {
      type: "object",
      properties: {
        text: {
          type: "string",
          minLength: 1,
          maxLength: MAX_NOTICE_CHARS,
          description: prompts.render("tool_group_notice_text"),
        },
      },
      required: ["text"],
      additionalProperties: false,
    },
  };
}
