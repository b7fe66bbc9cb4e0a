import type { ReplyPlan, ReplyWriting } from "../reply/reply-plan.ts";
import type { ReplyStage } from "../reply/reply-stage.ts";
import type { BuiltinCall, ToolRun } from "./builtin-tools.ts";
import { replyerMessages } from "./prompt.ts";

/** The reply call's arguments, once they passed its schema. */
interface ReplyArguments {
  msg_id?: string;
  set_quote?: boolean;
  intent?: string;
  /** Single mode: the reply's text itself. */
  text?: string;
  plugin_options?: Record<string, unknown>;
}

/** The reply call: checked into a reply plan, which the reply stage writes and sends. */
export async function runReply(
  args: Record<string, unknown>,
  call: BuiltinCall,
  replyStage: ReplyStage,
): Promise<ToolRun> {
  const { turn } = call;
  const plan = await replyPlan(args as ReplyArguments, call, replyStage);
  if ("problem" in plan) return call.invalid(plan.problem);
  if (turn.settings.mode === "single") return sendWritten(plan, (args as ReplyArguments).text ?? "", call);
  const written = await turn.replies.write(plan, replyWriting(plan, call));
  return "silent" in written ? notSent(written.silent) : replied(plan, call);
}

/** How the replyer writes a plan of this turn: the hooks told (PreReplyGenerate), its prompt. */
export function replyWriting(plan: ReplyPlan, call: BuiltinCall): ReplyWriting {
  const { turn, plugins } = call;
  const target = plan.target;
  return {
    generating: (extraPrompts) =>
      plugins.generating({
        reply_message_id: target.messageId,
        ...(plan.intent === undefined ? {} : { intent: plan.intent }),
        extra_prompt: extraPrompts.join("\n"),
      }),
    prompt: async (extraPrompts) =>
      replyerMessages({
        ...(await turn.promptInput()),
        targetLine: turn.line(target),
        intent: plan.intent,
        extraPrompts,
      }),
  };
}

/**
 * Single mode: the reply call's `text` is sent as it is, no replyer call. Requirements the
 * selected reply extensions set in `prepare` go back to the planner, which writes the text
 * again in its next round (nothing is sent meanwhile).
 */
async function sendWritten(plan: ReplyPlan, text: string, call: BuiltinCall): Promise<ToolRun> {
  if (text.trim() === "") return call.invalid("text must be the message to send, a non-empty string");
  const sent = await call.turn.replies.send(plan, text);
  if ("silent" in sent) return notSent(sent.silent);
  if ("requirements" in sent) {
    const requirements = sent.requirements.join("\n");
    return {
      output: { output: call.turn.settings.prompts.render("result_reply_requirements", { requirements }) },
    };
  }
  return replied(plan, call);
}

function replied(plan: ReplyPlan, call: BuiltinCall): ToolRun {
  return {
    output: { output: { sent: true, message_ids: call.turn.replies.sentMessageIds } },
    outcome: { status: "replied", reason: `replied to ${plan.target.messageId}` },
  };
}

/** The outbound guard dropped the reply: the turn ends silent, its reason why. */
function notSent(reason: string): ToolRun {
  return { output: { output: { sent: false, reason } }, outcome: { status: "silent", reason } };
}

/** The reply plan of a reply call, or what is wrong with the call (told to the model before anything is generated). */
async function replyPlan(
  args: ReplyArguments,
  call: BuiltinCall,
  replyStage: ReplyStage,
): Promise<ReplyPlan | { problem: string }> {
  const { turn, plugins } = call;
  const target = await turn.findTarget(args.msg_id);
  if (!target) {
    return { problem: `no message with msg_id ${String(args.msg_id)} in this chat (or it was recalled)` };
  }
  const selection = replyStage.readOptions(args.plugin_options, plugins.session);
  if (!selection.ok) return { problem: selection.problem };
  const intent = args.intent || call.plannerText || undefined;
  return {
    callId: call.callId,
    target,
    // A poke has no platform message to quote.
    quote: args.set_quote === true && target.notice === undefined,
    ...(intent === undefined ? {} : { intent }),
    extensions: selection.selected,
    origin: turn.origin(),
  };
}
