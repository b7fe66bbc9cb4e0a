import type { ChatMessage } from "../message/inbound.ts";
import type { RetentionLimits } from "../monitor/event-store.ts";
import type { MessageRetentionSettings } from "./config.ts";

export interface StoreOptions {
  /** Bounds the monitor events kept; read at every write, so a config reload applies at once. */
  monitorRetention: () => RetentionLimits;
  /** `storage.retention`, read at every pruning pass. */
  messageRetention: () => MessageRetentionSettings;
  /** `storage.spoolSize`: rows per table held in memory while the database cannot be written. */
  spoolLimit: number;
  /** Whether a message triggered the bot: such messages are the last dropped when the spool is full. */
  isTrigger: (message: ChatMessage) => boolean;
  /** The HTTP port this bot serves: a second bot refused the same SQLite file names it. */
  port?: number;
}

/** The config's defaults (monitor.*, storage.*), for tests and tools. */
export const DEFAULT_OPTIONS: StoreOptions = {
  monitorRetention: () => ({ maxEvents: 10_000, maxAgeHours: 72 }),
  messageRetention: () => ({ days: 0, messagesPerSession: 100_000 }),
  spoolLimit: 50_000,
  isTrigger: () => false,
};
