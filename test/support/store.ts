import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "better-sqlite3";
import type { Logger } from "../../src/log/logger.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { WriteTick } from "../../src/store/sqlite/write-tick.ts";
import { LogCapture } from "./log-capture.ts";
import { groupChatMessage } from "./messages.ts";

export interface TempDir {
  path: string;
  remove(): void;
}

export function makeTempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), "tsumugi-store-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface CapturedLog {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
}

/** A real pino logger whose JSON lines are kept for assertions. */
export function captureLog(): CapturedLog {
  const log = new LogCapture();
  return { logger: log.logger(), lines: log.lines };
}

/** A stored group message with fixed ids and time, so rows compare exactly. */
export function groupMessage(overrides: Partial<ChatMessage> = {}): ChatMessage {
  return groupChatMessage({
    sessionId: "onebot:10000:group:20000",
    userId: "30000",
    senderName: "Alice",
    messageId: "1",
    time: 1_700_000_000_000,
    ...overrides,
  });
}

/** A write tick over `db` with a small spool, for stores built one at a time. */
export function tickOf(db: Database, logger: Logger = captureLog().logger, spoolLimit = 1_000): WriteTick {
  return new WriteTick(db, logger, { spoolLimit });
}
