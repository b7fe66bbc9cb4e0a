import type { ChatMessage } from "../message/inbound.ts";
import type { MonitorEventStore } from "../monitor/event-store.ts";
import type { GroupStore } from "./group-types.ts";
import type { KnowledgeStore } from "./knowledge-types.ts";
import type { MemoryStore } from "./memory-types.ts";
import type { FenceToken } from "./session-fence.ts";
import type { StickerLimits } from "./sticker-eviction.ts";

export interface StoredMessage extends ChatMessage {
  /** Store row id, increasing in insertion order. */
  rowId: number;
}

export interface HistoryQuery {
  sessionId: string;
  /** At most this many, newest kept; returned oldest first. */
  limit: number;
}

/**
 * Persistence for messages. Writes are queued and committed in batches, so `append` never
 * blocks ingest; reads answer asynchronously (a database server or a worker may serve them)
 * and see every message appended before the call.
 * Keep SQL portable: a Postgres implementation will sit behind the same interface.
 */
export interface MessageStore {
  append(message: ChatMessage): void;
  recent(query: HistoryQuery): Promise<ChatMessage[]>;
  findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined>;
  /**
   * Marks the session's messages with this platform id recalled at `at` (those not yet
   * committed too); resolves with how many were marked now.
   */
  markRecalled(sessionId: string, messageId: string, at: number): Promise<number>;
  /** Commits everything queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** One conversation as the console lists it. */
export interface SessionSummary {
  sessionId: string;
  platform: string;
  chatType: string;
  messageCount: number;
  /** The session's newest message. */
  last: StoredMessage;
}

export interface SessionQuery {
  /** Matches any part of the session id (which holds the group or user id). */
  search?: string;
  limit: number;
}

export interface MessageQuery {
  /** Only this session; all sessions when absent. */
  sessionId?: string;
  /** Matches any part of the stored segments (text, names in mentions, …). */
  search?: string;
  /** Only messages older than this row (paging backwards). */
  beforeRowId?: number;
  limit: number;
}

/** Reading stored conversations for the console. Reads see every message appended before the call. */
export interface ChatHistory {
  /** Sessions with the most recent activity first. */
  sessions(query: SessionQuery): Promise<SessionSummary[]>;
  /** Newest first. */
  messages(query: MessageQuery): Promise<StoredMessage[]>;
}

/**
 * Where a turn stands: `running` from its start until it ends as `replied` (a reply was
 * sent), `silent` (the agent chose silence) or `failed`; `interrupted` when the process
 * stopped during the turn and it was not finished after the restart (its reason says why).
 */
export type TurnStatus = "running" | "replied" | "silent" | "failed" | "interrupted";

/** One agent turn, keyed by its `reply_id`. */
export interface TurnRecord {
  replyId: string;
  sessionId: string;
  status: TurnStatus;
  /** Why the turn ended this way (the `no_reply` reason, an error message, …). */
  reason?: string;
  /** What started it: `realtime`, `digest` or `summary` (absent on turns recorded before it was kept). */
  kind?: string;
  /** Platform ids of the messages that triggered the turn. */
  triggerMessageIds: string[];
  /** Platform ids of every message the turn was given, triggers included: enough to run it again. */
  messageIds?: string[];
  /** The reply id of the interrupted turn this one runs again after a restart. */
  recoveredFrom?: string;
  /**
   * Which run of its messages this is: 2 once run again after a crash, and so on; absent on a
   * first run. A turn run again that is interrupted by a crash too is not run again.
   */
  attempt?: number;
  /** Unix time in milliseconds. */
  createdAt: number;
  /** Unix time in milliseconds; absent while running. */
  finishedAt?: number;
  /** Free-form JSON details (planner rounds, tool calls, …). */
  detail?: Record<
    string,
    unknown
  > /** The instance that runs the turn, in a cluster; absent on a single instance. */;
  instanceId?: string;
}

/** Turns. Recording a `replyId` again replaces the earlier record. */
export interface TurnStore {
  /**
   * Records a turn as running and commits it, with every write queued before it: once it
   * resolves, a crash leaves the turn for `running()` to find. Rejects when the database refuses,
   * and with SessionFenced when `fence` (the token of the session lease the turn runs under,
   * in a cluster) is older than one the session has seen: the turn must not start.
   */
  begin(turn: TurnRecord, fence?: FenceToken): Promise<void>;
  /**
   * Records that an instance took the session's lease with `fence`, before it acts for the
   * session, so every later step under an older token is refused. Rejects with SessionFenced
   * when a newer token was recorded already.
   */
  advanceFence(sessionId: string, fence: FenceToken): Promise<void>;
  /**
   * Records a turn's end; resolves once the store has taken it (the SQLite store queues it
   * with the other writes). Both here and in `begin`, a turn that runs another again
   * (`recoveredFrom`) marks that one `interrupted` in the same commit.
   */
  record(turn: TurnRecord): Promise<void>;
  get(replyId: string): Promise<TurnRecord | undefined>;
  /** The newest `limit` turns of the session, newest first. */
  listBySession(sessionId: string, limit: number): Promise<TurnRecord[]>;
  /** Turns still `running`, oldest first: at start-up, the ones a crash interrupted. */
  running(): Promise<TurnRecord[]>;
}

/**
 * A journalled send: `pending` is committed before the message leaves; then `sent` (the
 * platform accepted it), `failed` (it certainly never left) or `in_doubt` (the adapter
 * failed after the request may have left: a timeout, a connection lost awaiting the answer).
 */
export type SendState = "pending" | "sent" | "failed" | "in_doubt";

/** One message the bot set out to send for a turn. */
export interface SendEntry {
  /** Journal row id. */
  id: number;
  replyId: string;
  sessionId: string;
  /** Where it went: adapter, account and peer (`qq:10000:group:20000`). */
  target: string;
  /** SHA-256 of the message's segments, to tell two sends apart without keeping media. */
  contentHash: string;
  /** The start of its text, for people reading the journal. */
  summary: string;
  state: SendState;
  /** The platform's id once `sent`. */
  platformMessageId?: string;
  /** Why it `failed` or is `in_doubt`. */
  error?: string;
  /** Unix time in milliseconds. */
  createdAt: number;
  /** Unix time in milliseconds. */
  updatedAt: number;
}

export type NewSend = Pick<SendEntry, "replyId" | "sessionId" | "target" | "contentHash" | "summary"> & {
  /** The token of the session lease the send's turn runs under (cluster); see TurnStore.begin. */
  fence?: FenceToken;
};

/**
 * The send journal: a restart must never send again what may already have gone out, and
 * OneBot has no idempotency key, so every send of a turn is recorded before and after it leaves.
 */
export interface SendStore {
  /**
   * Records a send as `pending` and commits it; resolves with its id. Rejects when the database
   * refuses, and with SessionFenced when `send.fence` is out of date: the send must not leave.
   */
  pending(send: NewSend): Promise<number>;
  /**
   * The platform accepted it. Resolves once the store has taken it (the SQLite store queues
   * it with the other writes): losing it in a crash leaves the send pending, read as in doubt.
   */
  sent(id: number, platformMessageId: string): Promise<void>;
  /** It ended with an error: `failed` when it certainly never left, else `in_doubt` (taken like `sent`). */
  settleFailed(id: number, state: "failed" | "in_doubt", error: string): Promise<void>;
  /** A turn's sends, oldest first. */
  forReply(replyId: string): Promise<SendEntry[]>;
  /** Deletes entries created before `time`; resolves with how many. */
  pruneBefore(time: number): Promise<number>;
  close(): Promise<void>;
}

/** LLM call accounting: usage-types.ts. */
export type * from "./usage-types.ts";

import type { UsageStore } from "./usage-types.ts";

/** A picture's description (or a voice message's transcript), written once per distinct content. */
export interface PictureDescription {
  /** Hex SHA-256 of the picture's bytes (a voice message's: of its playable audio). */
  sha256: string;
  kind: "image" | "sticker" | "voice";
  description: string;
  /** `"provider/model"` that wrote it. */
  model: string;
  /** Unix milliseconds. */
  createdAt: number;
}

/** Descriptions of pictures by content, and which platform file ids name which content. */
export interface PictureDescriptionStore {
  findBySha256(sha256: string): Promise<PictureDescription | undefined>;
  /** The description of the content a platform file id was last seen to hold. */
  findByFileId(fileId: string): Promise<PictureDescription | undefined>;
  /** Saves a description (the first one of a content stays) and links `fileId` to it. */
  save(description: PictureDescription, fileId?: string): Promise<void>;
  /** Links a platform file id to content already described. */
  linkFileId(fileId: string, sha256: string): Promise<void>;
}

/** `pending` until its time; then `sent`, or `expired` when the bot was down too long past it. */
export type ReminderStatus = "pending" | "sent" | "cancelled" | "expired";

/** A reminder as a chat command or the planner's `schedule` tool sets it. */
export interface NewReminder {
  /** The chat it is sent to (a session origin), mentioning `userId` in a group. */
  origin: Pick<
    ChatMessage,
    "platform" | "adapterId" | "selfId" | "sessionId" | "chatType" | "groupId" | "userId"
  >;
  userId: string;
  userName: string;
  text: string;
  /** Unix milliseconds. */
  dueAt: number;
  createdAt: number;
}

export interface Reminder extends NewReminder {
  /** Short and increasing: what `/cancel <id>` names. */
  id: number;
  status: ReminderStatus;
  firedAt?: number;
  /** Sent after its time (the bot was down when it was due). */
  late: boolean;
}

/** Reminders, and which `schedules:` times have fired; claims are atomic across instances. */
export interface ReminderStore {
  add(reminder: NewReminder): Promise<Reminder>;
  /** Pending reminders, soonest first, of one chat and/or person when given. */
  pending(filter?: { sessionId?: string; userId?: string }): Promise<Reminder[]>;
  /** The newest reminders whatever their status (the console). */
  recent(limit: number): Promise<Reminder[]>;
  /** Pending reminders due by `now`, soonest first. */
  due(now: number, limit: number): Promise<Reminder[]>;
  nextDueAt(): Promise<number | undefined>;
  /** Moves a pending reminder on; true for the one caller (of all instances) that did. */
  settle(
    id: number,
    status: "sent" | "expired" | "cancelled",
    firedAt: number,
    late: boolean,
  ): Promise<boolean>;
  /** Records that a schedule fired for `dueAt`; true for the one caller that recorded it first. */
  claimScheduleRun(scheduleKey: string, dueAt: number): Promise<boolean>;
}

/** A sticker the bot has seen, described and kept to send again; its bytes are read apart. */
export interface KeptSticker {
  /** Hex SHA-256 of the bytes: the same sticker seen twice is kept once. */
  sha256: string;
  mime: string;
  /** The vision model's few words, as shown in `[表情：…]`. */
  description: string;
  /** A few emotion words the same vision call gave. */
  emotions: string[];
  /** How often the bot sent it. */
  usageCount: number;
  /** Unix milliseconds of its last send; 0 before the first. */
  lastUsedAt: number;
  createdAt: number;
  /** The chat it was collected in; absent on stickers kept before that was recorded. */
  sessionId?: string;
}

/** A platform account that has connected, as the console remembers it. */
export interface KnownAccount {
  adapterId: string;
  selfId: string;
  /** Unix ms of its latest connection. */
  lastConnectedAt: number;
}

/**
 * The platform accounts that have connected, kept across restarts so the console can list one
 * that is gone; the operator dismisses it, and it is remembered again when it connects.
 */
export interface KnownAccountStore {
  remember(account: KnownAccount): Promise<void>;
  list(): Promise<KnownAccount[]>;
  /** Resolves with whether the account was known. */
  forget(adapterId: string, selfId: string): Promise<boolean>;
}

/** The kept stickers, bounded by a count and by the bytes they take together. */
export interface StickerStore {
  /**
   * Keeps a sticker unless the same content is kept already (then nothing changes and it
   * resolves false). Beyond the limits the others that were least used (then least recently,
   * then oldest) are dropped: a newcomer always gets in, so it has its chance to be used.
   */
  keep(
    sticker: Pick<KeptSticker, "sha256" | "mime" | "description" | "emotions" | "createdAt"> & {
      bytes: Uint8Array;
      sessionId: string;
    },
    limits: StickerLimits,
  ): Promise<boolean>;
  /** The kept stickers, without bytes: every one, or those collected in the chat `sessionId`. */
  list(sessionId?: string): Promise<KeptSticker[]>;
  /** How many are kept: all, or those collected in the chat `sessionId`. */
  count(sessionId?: string): Promise<number>;
  bytes(sha256: string): Promise<Uint8Array | undefined>;
  /** Counts one send of the sticker at `at` (Unix ms). */
  markUsed(sha256: string, at: number): Promise<void>;
}

/** Every store the bot uses, over one database. */
export interface Stores {
  messages: MessageStore;
  /** The same messages, for browsing and search. */
  history: ChatHistory;
  turns: TurnStore;
  /** What each turn set out to send, and whether it left. */
  sends: SendStore;
  usage: UsageStore;
  /** What each turn did, for the console's timeline; bounded by count and age. */
  monitorEvents: MonitorEventStore;
  /** Pictures described once, found again by content or by file id. */
  pictures: PictureDescriptionStore;
  /** Voice messages transcribed once, found again by content or by file id (kind `voice`). */
  voiceTranscripts: PictureDescriptionStore;
  /** Reminders and schedule runs. */
  reminders: ReminderStore;
  /** Stickers kept to send again (`stickers.*`). */
  stickers: StickerStore;
  /** The platform accounts that have connected, until the console dismisses one that is gone. */
  knownAccounts: KnownAccountStore;
  /** Long-term memory: facts about people and groups; written at once, never pruned. */
  memories: MemoryStore;
  /** Groups' activity (from the messages) and their learned expressions. */
  groups: GroupStore;
  /** The knowledge base's documents and passages (`knowledge.*`). */
  knowledge: KnowledgeStore;
  /** Whether writes reach the database, for `/healthz`: kept in memory, so it never waits on the database. */
  status(): StorageStatus;
  /** Flushes every queue, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * `ok` while writes reach the database; `degraded` while they fail for its state (locked by
 * another process, disk full, read-only) and are held in memory, retried until they succeed.
 */
export interface StorageStatus {
  state: "ok" | "degraded";
  /** The database's error while degraded, e.g. "database is locked". */
  reason?: string;
  /** Rows held in memory, waiting for the database. */
  spooled: number;
  /** Rows dropped since start because the in-memory spool was full. */
  dropped: number;
}
