import {
  Plugin,
  ReplyExtension,
  type ReplyExtensionContext,
  type ReplyExtensionPayload,
  type ReplyExtensionResult,
  type ReplyMessage,
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
 * final text is spoken by espeak-ng and sent as a voice message after the text (or instead
 * of it, with `keep_text: false`). Without espeak-ng the reply fails rather than quietly
 * going out as text only.
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

    const audio = await synthesize(text, context.config, context.signal);
    const result: ReplyMessage[] = [];
    for (const message of messages) {
      const segments = message.segments.filter((segment) => parameters.keep_text || segment.type !== "text");
      if (segments.length > 0) result.push({ segments, quote_previous: message.quote_previous });
    }
    result.push({
      segments: [Voice(audio, text)],
      quote_previous: false,
    });
    return { messages: result };
  }
}
