import { type TurnLimits, turnUser } from "../chat/turn-limits.ts";
import type { ImageOutcome, MakeImageRequest } from "../llm/image-maker.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { ImageSettings } from "../media/image-config.ts";
import { MediaCaps } from "../media/media-caps.ts";
import { madePicture, pictureSegment } from "../media/outgoing-media.ts";
import type { HostResolver } from "../media/vetted-get.ts";
import { textSegment } from "../message/segment.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { guardReply } from "../reply/outbound-guard.ts";
import type { BuiltinCall, BuiltinTool, ToolRun } from "./builtin-tools.ts";
import { TurnStopped } from "./turn-outcome.ts";

export const GENERATE_IMAGE_TOOL = "generate_image";

export interface ImageToolDeps {
  /** The current client's image task (`llm.models.image`); read per call, as a reload replaces it. */
  imageMaker: () => {
    configured(sessionId?: string): boolean;
    make(request: MakeImageRequest): Promise<ImageOutcome>;
  };
  settings: () => ImageSettings;
  /** `media.allowPrivateNetworks`: whether a picture's url may be on loopback or LAN addresses. */
  allowPrivateNetworks: () => boolean;
  /** The daily token budgets: a turn that crossed one draws no more. */
  budgets: Pick<TurnLimits, "crossed">;
  monitor: Monitor;
  /** Host names' addresses for fetched pictures; the system's unless a test sets them. */
  resolve?: HostResolver;
}

export function generateImageSpec(): ToolSpec {
  return {
    name: GENERATE_IMAGE_TOOL,
    description:
      "Draw a picture and send it in the chat, with an optional short caption. Use it when someone asks you to draw, paint or make a picture (画一张, 生成图片). `prompt` describes the picture for the image model. It ends your turn: the picture (and caption) is your reply. If the result says the provider refused, tell them so plainly with reply.",
    parameters: {
      type: "object",
      properties: {
        prompt: {
          type: "string",
          minLength: 1,
          description:
            "What the picture shows, in detail: subject, setting, style, colours (English often works best for image models).",
        },
        caption: {
          type: "string",
          maxLength: 200,
          description: "A short line sent with the picture, in your persona; leave it out for none.",
        },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
  };
}

/**
 * `generate_image { prompt }`, offered where an image model is set and only in turns somebody
 * asked for (the governor lets an unasked turn join with words, not pictures): one picture
 * from the image task, its url (if it came as one) fetched through the vetted fetch, sent as an
 * `image` segment with the optional caption (which passes the outbound guard). The caps
 * (`media.images`) are taken before the model is asked; a refusal by the provider comes back
 * to the planner in the provider's words, to be said plainly.
 */
export function generateImageTool(deps: ImageToolDeps): Pick<BuiltinTool, "spec" | "offered" | "run"> {
  const caps = new MediaCaps("media.images", deps.settings);
  return {
    spec: () => generateImageSpec(),
    offered: (round) =>
      round.batch.unasked === undefined && deps.imageMaker().configured(round.session.sessionId),
    run: async (args, call) => {
      const prompt = (args.prompt as string).trim();
      const settings = deps.settings();
      if (prompt === "") return call.invalid("prompt must describe the picture, a non-empty string");
      const chars = [...prompt].length;
      if (chars > settings.maxPromptChars) {
        return call.invalid(
          `prompt is ${chars} characters, over media.images.maxPromptChars (${settings.maxPromptChars})`,
        );
      }
      const { turn } = call;
      const userKey = turnUser(turn.batch);
      const capped = caps.take({ replyId: turn.replyId, ...(userKey === undefined ? {} : { userKey }) });
      if (capped !== undefined) {
        emit(deps, call, "image.failed", { stage: "cap", reason: capped });
        return { output: { output: { sent: false, refused: `${capped}; tell them in a reply` } } };
      }
      const crossed = await deps.budgets.crossed(turn.batch, turn.replyId);
      if (crossed !== undefined) throw new TurnStopped(crossed);
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const signal = AbortSignal.any([turn.signal, timeout]);
      const made = await deps.imageMaker().make({
        prompt,
        size: settings.size,
        signal,
        replyId: turn.replyId,
        sessionId: turn.batch.sessionId,
        tokensPerPicture: settings.tokensPerPicture,
        ...(userKey === undefined ? {} : { userKey }),
      });
      turn.signal.throwIfAborted();
      if (!made.ok) {
        if ("refused" in made) {
          emit(deps, call, "image.failed", { stage: "refused", model: made.ref, reason: made.refused });
          return {
            output: {
              output: {
                sent: false,
                refused_by_provider: made.refused,
                note: "say plainly that the image service refused this",
              },
            },
          };
        }
        const reason = timeout.aborted ? `timed out after ${settings.timeoutMs} ms` : made.failed;
        emit(deps, call, "image.failed", { stage: "model", reason });
        return { output: { output: { sent: false, error: reason }, isError: true } };
      }
      const { image } = made;
      const picture = await madePicture(image, {
        allowPrivateNetworks: deps.allowPrivateNetworks(),
        maxBytes: settings.maxBytes,
        signal,
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
      }).catch((error: unknown) => ({
        ok: false as const,
        reason: `fetching the picture: ${(error as Error).message}`,
      }));
      if (!picture.ok) {
        emit(deps, call, "image.failed", { stage: "fetch", model: image.ref, reason: picture.reason });
        return { output: { output: { sent: false, error: picture.reason }, isError: true } };
      }
      return sendPicture(deps, call, picture.bytes, (args.caption as string | undefined) ?? "", {
        model: image.ref,
        provider: image.provider,
        latencyMs: image.latencyMs,
        bytes: picture.bytes.length,
        mime: picture.mime,
        fetched: picture.fetched,
        size: settings.size,
      });
    },
  };
}

/** Sends the picture (and its guarded caption) as one message: the turn's reply. */
async function sendPicture(
  deps: ImageToolDeps,
  call: BuiltinCall,
  bytes: Buffer,
  caption: string,
  made: Record<string, unknown>,
): Promise<ToolRun> {
  const { turn } = call;
  const guarded = caption.trim() === "" ? undefined : guardReply(caption);
  const words = guarded && "text" in guarded ? [textSegment(guarded.text)] : [];
  const sent = await turn.replies.sendMessage(turn.origin(), [pictureSegment(bytes), ...words]);
  call.plugins.sentByTools.push(sent.messageId);
  emit(deps, call, "image.generated", { ...made, caption: words.length > 0, messageId: sent.messageId });
  return {
    output: { output: { sent: true, message_id: sent.messageId } },
    outcome: { status: "replied", reason: `generate_image: sent a picture (${String(made.model)})` },
  };
}

function emit(
  deps: ImageToolDeps,
  call: BuiltinCall,
  type: "image.generated" | "image.failed",
  data: Record<string, unknown>,
): void {
  deps.monitor.emit({ type, replyId: call.turn.replyId, sessionId: call.turn.batch.sessionId, data });
}
