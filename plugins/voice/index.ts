import {
  Plugin,
  ReplyExtension,
  type ReplyExtensionContext,
  type ReplyExtensionPayload,
  type ReplyExtensionResult,
  type ReplyMessage,
  type ReplySegment,
  Voice,
} from "tsumugi/sdk";
import { type SpeechSettings, synthesize } from "./espeak.ts";

interface VoiceParameters {
  attach_voice: boolean;
  keep_text: boolean;
}

/**
 * Seeds 000/001's voice reply example as a working plugin: when the planner selects
 * `voice_plugin.voice` with `attach_voice`, the replyer is asked for speakable text, and the
 * final text is spoken and sent as a voice message after the text (or instead of it, with
 * `keep_text: false`). It speaks through the host's tts task (`llm.models.tts`, under the
 * `media.tts` caps) when one is set; when that cannot speak (a cap, the model down) the reply
 * goes out as text, as a send_voice call's does. Without a tts model espeak-ng speaks, and
 * without espeak-ng the reply fails rather than quietly going out as text only.
 */
export default class VoicePlugin extends Plugin<SpeechSettings> {
  @ReplyExtension("voice", {
    description: "需要语音回复时启用，可选择同时保留文字",
    parameters: {
      attach_voice: { type: "boolean", default: false, description: "是否合成语音" },
      keep_text: { type: "boolean", default: true, description: "是否同时发送文字" },
    },
    timeout_ms: 60_000,
  })
  async replyVoice(
    { phase, parameters, text, messages }: ReplyExtensionPayload<VoiceParameters>,
    context: ReplyExtensionContext<SpeechSettings>,
  ): Promise<ReplyExtensionResult> {
    if (!parameters.attach_voice) return {};
    if (phase === "prepare") return { extra_prompt: "这次回复会转成语音，请使用适合朗读的自然口语。" };

    const voice = await spoken(text, context);
    if (!voice) return {};
    const result: ReplyMessage[] = [];
    for (const message of messages) {
      const segments = message.segments.filter((segment) => parameters.keep_text || segment.type !== "text");
      if (segments.length > 0) result.push({ segments, quote_previous: message.quote_previous });
    }
    result.push({ segments: [voice], quote_previous: false });
    return { messages: result };
  }
}

/** The text as a voice segment: by the host's tts task when set, else by espeak-ng; undefined when the host's could not speak it. */
async function spoken(
  text: string,
  context: ReplyExtensionContext<SpeechSettings>,
): Promise<ReplySegment | undefined> {
  if (!context.speech.available) return Voice(await synthesize(text, context.config, context.signal), text);
  try {
    return Voice((await context.speech.speak(text)).audio, text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.logger.warn(`the reply goes out as text, not spoken: ${reason}`);
    return undefined;
  }
}
