import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { PictureText } from "../message/picture-text.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { PictureDescriptionStore } from "../store/types.ts";
import { AttemptBudget } from "./attempt-budget.ts";
import { DescriptionCache } from "./description-cache.ts";
import { fetchKeyedPicture, type KeyedPicture } from "./picture-refs.ts";
import type { StickerCollection } from "./sticker-collection.ts";
import type { PictureFetcher, PictureRef } from "./types.ts";
import type { VisionSettings } from "./vision-config.ts";

export interface PictureDescriberDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  store: PictureDescriptionStore;
  /** Keeps the stickers described here where `stickers.*` turns them on. */
  stickers: Pick<StickerCollection, "learn">;
  /** Whether `llm.models.vision` lists a model; without one nothing is fetched or described. */
  enabled: () => boolean;
  settings: () => VisionSettings;
  prompts: () => PromptTemplates;
  monitor: Monitor;
  logger: Logger;
  /** Names the current day for `maxPerDay`; the process's local date unless a test sets it. */
  today?: () => string;
}

/** Who a picture is described for: its turn, and the fetcher of the turn's account. */
export interface PictureTurn {
  replyId: string;
  sessionId: string;
  fetcher: PictureFetcher;
  signal: AbortSignal;
}

/** What a picture the bot could not read (broken, too large, not a picture) shows in the transcript. */
const UNREADABLE = "无法读取";
/** Longest description kept: a description is a line of the transcript, not an essay. */
const MAX_DESCRIPTION_CHARS = 60;
const MAX_OUTPUT_TOKENS = 120;

/**
 * Describes pictures once: a file id seen before, or content (SHA-256) described before,
 * costs no model call; anything else is fetched and described by the vision task, and the
 * description is stored. Counts today's attempts in memory for `media.vision.maxPerDay`:
 * each costs one before it is fetched, whatever its outcome, so pictures that fail to decode
 * cannot be sent without end. Never throws for what a platform or model did: a failure is a
 * monitor event, and undefined (a placeholder) or, for a picture that cannot be read, `无法读取`.
 */
export class PictureDescriber {
  /** Today's attempts, and pictures paused after failing (with what unreadable ones show meanwhile). */
  private readonly budget: AttemptBudget<PictureText>;
  private readonly descriptions: DescriptionCache;

  constructor(private readonly deps: PictureDescriberDeps) {
    this.budget = new AttemptBudget(() => deps.settings().maxPerDay, deps.today);
    this.descriptions = new DescriptionCache(deps.store, deps.logger, "picture description");
  }

  get enabled(): boolean {
    return this.deps.enabled();
  }

  settings(): VisionSettings {
    return this.deps.settings();
  }

  /** The stored description of a file id seen before, if any (no fetch, no model call). */
  async known(ref: PictureRef): Promise<PictureText | undefined> {
    const stored = await this.descriptions.byFileId(ref.fileId);
    return stored && { kind: ref.kind, description: stored.description };
  }

  /** A picture that failed recently is not tried again: it shows `text` if it has one, else its placeholder. */
  recentFailure(key: string): { shown?: PictureText } | undefined {
    return this.budget.recentFailure(key);
  }

  /** Fetches (unless it came inline) and describes one picture, bounded by `media.vision.timeoutMs`. */
  async describe(picture: KeyedPicture, turn: PictureTurn): Promise<PictureText | undefined> {
    const { key, ref } = picture;
    const { timeoutMs } = this.deps.settings();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`describing took longer than ${timeoutMs} ms`)),
      timeoutMs,
    );
    const forwardAbort = () => controller.abort(turn.signal.reason);
    turn.signal.addEventListener("abort", forwardAbort, { once: true });
    const started = performance.now();
    let stage: "fetch" | "model" = "fetch";
    try {
      if (!this.budget.takeDailyAttempt()) {
        this.emitSkipped(turn, 1, "daily cap");
        return undefined;
      }
      const fetched = await fetchKeyedPicture(picture, turn.fetcher, controller.signal);
      if (!fetched.ok) {
        const shown = fetched.unreadable ? { kind: ref.kind, description: UNREADABLE } : undefined;
        return this.failed(key, ref, turn, "fetch", fetched.reason, shown);
      }
      const fetchMs = performance.now() - started;
      const { bytes, mime, sha256 } = fetched.picture;
      const known = await this.descriptions.byContent(sha256, ref.fileId);
      if (known) {
        this.emit(turn, "vision.described", { kind: ref.kind, cached: true, model: known.model, fetchMs });
        return { kind: ref.kind, description: known.description };
      }
      stage = "model";
      const result = await this.deps.llm.generate({
        task: "vision",
        messages: [
          {
            role: "user",
            content: this.deps.prompts().render(ref.kind === "sticker" ? "vision_sticker" : "vision_image"),
            images: [{ mime, bytes }],
          },
        ],
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        signal: controller.signal,
        replyId: turn.replyId,
        sessionId: turn.sessionId,
      });
      const description = descriptionOf(result.text);
      if (description === "") return this.failed(key, ref, turn, "model", "the model answered no text");
      const model = `${result.provider}/${result.model}`;
      await this.descriptions.save(
        { sha256, kind: ref.kind, description, model, createdAt: Date.now() },
        ref.fileId,
      );
      if (ref.kind === "sticker") {
        // An animated sticker is kept as it came; its first frame is what was described.
        const { animated } = fetched.picture;
        const kept = animated ? { mime: "image/gif", bytes: animated } : { mime, bytes };
        await this.deps.stickers.learn(
          { sha256, ...kept, description, emotions: emotionsOf(result.text) },
          turn,
        );
      }
      this.emit(turn, "vision.described", {
        kind: ref.kind,
        cached: false,
        model,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        latencyMs: result.latencyMs,
        fetchMs,
      });
      return { kind: ref.kind, description };
    } catch (error) {
      const reason = controller.signal.aborted
        ? String(controller.signal.reason?.message ?? "aborted")
        : errorText(error);
      return this.failed(key, ref, turn, stage, reason);
    } finally {
      clearTimeout(timer);
      turn.signal.removeEventListener("abort", forwardAbort);
    }
  }

  /** Says that `count` pictures stay placeholders because a cap was reached. */
  emitSkipped(turn: PictureTurn, count: number, reason: "turn cap" | "daily cap"): void {
    this.emit(turn, "vision.skipped", { count, reason });
  }

  /** Whether today's attempts are used up: then nothing new is even fetched. */
  dailyCapReached(): boolean {
    return this.budget.dailyCapReached();
  }

  /** Records the failure (timeline, and not tried again for a while); answers what the picture shows meanwhile. */
  private failed(
    key: string,
    ref: PictureRef,
    turn: PictureTurn,
    stage: "fetch" | "model",
    reason: string,
    shown?: PictureText,
  ): PictureText | undefined {
    this.budget.pause(key, shown);
    this.emit(turn, "vision.failed", { kind: ref.kind, stage, reason });
    // The fetcher logs its own failures.
    if (stage === "model") {
      this.deps.logger.warn(
        { replyId: turn.replyId, fileId: ref.fileId },
        `picture not described: ${reason}`,
      );
    }
    return shown;
  }

  private emit(
    turn: PictureTurn,
    type: "vision.described" | "vision.failed" | "vision.skipped",
    data: Record<string, unknown>,
  ): void {
    this.deps.monitor.emit({ type, replyId: turn.replyId, sessionId: turn.sessionId, data });
  }
}

/** A sticker answer's line of emotion words (prompts vision_sticker): "情绪：无语、嫌弃". */
const EMOTIONS_LINE = /^\s*(?:情绪|emotions?)\s*[:：]\s*(.*)$/i;
const MAX_EMOTIONS = 5;
const MAX_EMOTION_CHARS = 8;

/** The answer's first line (not its emotions line), without quotes or brackets that would break `[图片：…]`. */
export function descriptionOf(answer: string): string {
  const line =
    answer.split("\n").find((candidate) => candidate.trim() !== "" && !EMOTIONS_LINE.test(candidate)) ?? "";
  const cleaned = line
    .replace(/[[\]【】]/g, "")
    .trim()
    .replace(/^["“'「]+|["”'」。.]+$/g, "")
    .trim();
  return [...cleaned].slice(0, MAX_DESCRIPTION_CHARS).join("");
}

/** The emotion words of a sticker answer's emotions line; none when the model left it out. */
export function emotionsOf(answer: string): string[] {
  const words = answer
    .split("\n")
    .map((line) => EMOTIONS_LINE.exec(line)?.[1])
    .find((found) => found !== undefined);
  if (words === undefined) return [];
  const emotions = words
    .split(/[\s,，、;；/|。.]+/)
    .map((word) => [...word.replace(/[[\]【】"“”'「」]/g, "")].slice(0, MAX_EMOTION_CHARS).join(""))
    .filter((word) => word !== "");
  return [...new Set(emotions)].slice(0, MAX_EMOTIONS);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
