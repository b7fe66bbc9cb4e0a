import type { Logger } from "../log/logger.ts";
import type { Segment } from "../message/segment.ts";
import { parseSessionId } from "../message/session-id.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { KeptSticker, StickerStore } from "../store/types.ts";
import type { StickerSettings } from "./sticker-config.ts";
import { bestSticker, type WantedSticker } from "./sticker-match.ts";

export interface StickerCollectionDeps {
  store: StickerStore;
  settings: () => StickerSettings;
  monitor: Monitor;
  logger: Logger;
}

/** A sticker described just now, with its bytes. */
export interface SeenSticker {
  sha256: string;
  mime: string;
  bytes: Buffer;
  description: string;
  emotions: string[];
}

/** Which turn a sticker was seen or sent in, for the timeline. */
export interface StickerTurn {
  replyId: string;
  sessionId: string;
}

/** A sticker larger than this is not kept: a sticker is small, and every kept one is a database row. */
export const MAX_STICKER_BYTES = 1024 * 1024;

/**
 * Stickers back (MaiBot's "表情包小偷"): stickers described in chats where
 * `stickers.*` turns them on are kept, and the planner's `send_sticker` picks one of them.
 * Never throws for what the database did: a lost sticker is logged and the turn goes on.
 */
export class StickerCollection {
  constructor(private readonly deps: StickerCollectionDeps) {}

  /** Whether stickers are on in this chat: `stickers.enabled`, narrowed to `stickers.groups` when listed. */
  enabledIn(sessionId: string): boolean {
    const { enabled, groups } = this.deps.settings();
    if (!enabled) return false;
    if (groups.length === 0) return true;
    const address = parseSessionId(sessionId);
    return address?.chatType === "group" && groups.includes(address.peerId);
  }

  /** Whether the planner is offered `send_sticker` here: stickers are on and one may be sent here. */
  async offeredIn(sessionId: string): Promise<boolean> {
    if (!this.enabledIn(sessionId)) return false;
    try {
      return (await this.deps.store.count(this.collectedFor(sessionId))) > 0;
    } catch (error) {
      this.deps.logger.warn({ err: error }, "counting kept stickers failed");
      return false;
    }
  }

  /**
   * Keeps a sticker just described in a chat where stickers are on, as collected in that chat;
   * the same content is kept once.
   */
  async learn(sticker: SeenSticker, turn: StickerTurn): Promise<void> {
    const { capacity, maxTotalBytes } = this.deps.settings();
    const tooLarge = sticker.bytes.length > Math.min(MAX_STICKER_BYTES, maxTotalBytes);
    if (!this.enabledIn(turn.sessionId) || tooLarge) return;
    const { sha256, mime, bytes, description, emotions } = sticker;
    try {
      const kept = await this.deps.store.keep(
        { sha256, mime, bytes, description, emotions, createdAt: Date.now(), sessionId: turn.sessionId },
        { capacity, maxTotalBytes },
      );
      if (kept) this.emit("sticker.learned", turn, { sha256, description, emotions, bytes: bytes.length });
    } catch (error) {
      this.deps.logger.warn({ err: error, sha256 }, "keeping a sticker failed");
    }
  }

  /**
   * The sticker that fits best (see sticker-match.ts) among those that may be sent in the chat
   * `sessionId`, with its bytes, or undefined when none fits.
   */
  async choose(
    wanted: WantedSticker,
    sessionId: string,
  ): Promise<{ sticker: KeptSticker; bytes: Buffer } | undefined> {
    const sticker = bestSticker(await this.deps.store.list(this.collectedFor(sessionId)), wanted);
    if (!sticker) return undefined;
    const bytes = await this.deps.store.bytes(sticker.sha256);
    return bytes && { sticker, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  }

  /** Counts a send (eviction keeps the most used) and tells the timeline. */
  async sent(sticker: KeptSticker, messageId: string, turn: StickerTurn): Promise<void> {
    try {
      await this.deps.store.markUsed(sticker.sha256, Date.now());
    } catch (error) {
      this.deps.logger.warn({ err: error, sha256: sticker.sha256 }, "counting a sticker's use failed");
    }
    this.emit("sticker.sent", turn, {
      sha256: sticker.sha256,
      description: sticker.description,
      emotions: sticker.emotions,
      messageId,
    });
  }

  /**
   * Which chat's stickers may be sent in `sessionId`: its own, or every chat's (undefined) with
   * `stickers.shareAcrossChats`. A sticker seen in one group may be private to it.
   */
  private collectedFor(sessionId: string): string | undefined {
    return this.deps.settings().shareAcrossChats ? undefined : sessionId;
  }

  private emit(
    type: "sticker.learned" | "sticker.sent",
    turn: StickerTurn,
    data: Record<string, unknown>,
  ): void {
    this.deps.monitor.emit({ type, replyId: turn.replyId, sessionId: turn.sessionId, data });
  }
}

/**
 * A kept sticker as an outgoing image segment: `sub_type` 1 so QQ shows it as a sticker, and
 * the description as its summary, so history reads `[表情：…]` once the bytes are dropped.
 */
export function stickerSegment(sticker: KeptSticker, bytes: Buffer): Segment {
  return {
    type: "image",
    data: {
      file: `base64://${bytes.toString("base64")}`,
      sub_type: "1",
      summary: `[表情：${sticker.description}]`,
    },
  };
}
