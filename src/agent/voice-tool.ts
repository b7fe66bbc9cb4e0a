import { turnUser } from "../chat/turn-limits.ts";
import type { ToolSpec } from "../llm/types.ts";
import { recordSegment } from "../media/outgoing-media.ts";
import type { Segment } from "../message/segment.ts";
import type { ReplyPlan } from "../reply/reply-plan.ts";
import type { ReplyResult } from "../reply/reply-stage.ts";
import type { BuiltinCall, BuiltinTool, ToolRun } from "./builtin-tools.ts";
import { replyWriting } from "./reply-tool.ts";
import { TurnStopped } from "./turn-outcome.ts";
import type { VoiceSpeaking } from "./voice-speaking.ts";

export const SEND_VOICE_TOOL = "send_voice";

export function sendVoiceSpec(): ToolSpec {
  return {
    name: SEND_VOICE_TOOL,
    description:
      "Answer with a voice message instead of text: `text` is what to say; it is written in your persona like any reply, read aloud and sent as a voice message (as text if it cannot be spoken). Use it when someone asks you to speak, sing or say something aloud (发语音, 说句话). It ends your turn like reply.",
    parameters: {
      type: "object",
      properties: {
        text: {
          type: "string",
          minLength: 1,
          maxLength: 2000,
          description:
            "What to say aloud, in the chat's language: spoken words only, no emoji, links or markup.",
        },
      },
      required: ["text"],
      additionalProperties: false,
    },
  };
}

/**
 * `send_voice { text }`, offered where a tts model is set: the replyer writes the text in the
 * persona (it may reword it), the outbound guard and the governor see it as any reply, then it
 * is spoken and sent as one `record` message. The speech model failing, the text being longer
 * than `media.tts.maxChars` or a SILK encoding failing sends the text as text instead. The
 * caps (`media.tts`) are taken before anything is written: a refused call sends nothing and
 * tells the planner, which may still reply.
 */
export function sendVoiceTool(speaking: VoiceSpeaking): Pick<BuiltinTool, "spec" | "offered" | "run"> {
  return {
    spec: () => sendVoiceSpec(),
    offered: (round) => speaking.configured(round.session.sessionId),
    run: async (args, call) => {
      const text = (args.text as string).trim();
      if (text === "") return call.invalid("text must be what to say, a non-empty string");
      const { turn } = call;
      const target = await turn.findTarget(undefined);
      if (!target) return call.invalid("no message to answer");
      const userKey = turnUser(turn.batch);
      const capped = speaking.claim(turn.batch, turn.replyId, userKey);
      if (capped !== undefined) {
        return { output: { output: { sent: false, refused: `${capped}; reply in text instead` } } };
      }
      const plan: ReplyPlan = {
        callId: call.callId,
        target,
        quote: false,
        intent: turn.settings.prompts.render("voice_intent", { text }),
        extensions: [],
        origin: turn.origin(),
      };
      const spoken: { as: "voice" | "text" } = { as: "text" };
      const deliver = async (written: string) => {
        const segments = await speakAsRecord(speaking, call, written, userKey);
        if (segments) spoken.as = "voice";
        return segments;
      };
      const sent =
        turn.settings.mode === "single"
          ? await turn.replies.send(plan, text, deliver)
          : await turn.replies.write(plan, { ...replyWriting(plan, call), deliver });
      return voiceResult(sent, spoken.as, call);
    },
  };
}

/** The spoken text as a `record` message, or undefined (told on the timeline) when it goes as text. */
async function speakAsRecord(
  speaking: VoiceSpeaking,
  call: BuiltinCall,
  text: string,
  userKey: string | undefined,
): Promise<Segment[] | undefined> {
  const { turn } = call;
  const spoken = await speaking.speak({
    text,
    batch: turn.batch,
    replyId: turn.replyId,
    userKey,
    signal: turn.signal,
  });
  if (spoken.ok) return [recordSegment(spoken.audio)];
  if (spoken.stage === "budget") throw new TurnStopped(spoken.reason);
  return undefined;
}

function voiceResult(
  sent: ReplyResult | { requirements: string[] },
  as: "voice" | "text",
  call: BuiltinCall,
): ToolRun {
  if ("requirements" in sent) {
    const requirements = sent.requirements.join("\n");
    return {
      output: { output: call.turn.settings.prompts.render("result_reply_requirements", { requirements }) },
    };
  }
  if ("silent" in sent) {
    return {
      output: { output: { sent: false, reason: sent.silent } },
      outcome: { status: "silent", reason: sent.silent },
    };
  }
  return {
    output: { output: { sent: true, as, message_ids: call.turn.replies.sentMessageIds } },
    outcome: {
      status: "replied",
      reason: `send_voice: replied ${as === "voice" ? "with a voice message" : "in text (not spoken)"}`,
    },
  };
}
