/** One group's activity, counted from its stored messages. */
export interface GroupActivity {
  sessionId: string;
  platform: string;
  selfId: string;
  groupId: string;
  /** Messages (the bot's included) in the hour and the day before the query's `now`. */
  messagesLastHour: number;
  messagesLastDay: number;
  /** The bot's own messages in that day. */
  botMessagesLastDay: number;
  /** Members (not the bot) who spoke in that day. */
  activeMembersLastDay: number;
  /** Unix milliseconds of the group's newest stored message. */
  lastMessageAt: number;
  /** The day hour by hour, oldest first (24 entries, the last the hour before `now`): all messages and the bot's. */
  hourly: HourActivity[];
}

/** One hour of a group's day. */
export interface HourActivity {
  messages: number;
  bot: number;
}

/** One learned expression of a group: what is said, what it means there, and an example. */
export interface GroupExpression {
  /** Row id. */
  id: number;
  sessionId: string;
  expression: string;
  meaning: string;
  example: string;
  /** Unix milliseconds of its last change (learned or edited). */
  updatedAt: number;
}

export type NewExpression = Pick<GroupExpression, "expression" | "meaning" | "example">;

/** What learning has done in a group: the daily bound, and when its expressions were last edited or forgotten. */
export interface ExpressionProgress {
  /** Passes made on `day` (chat.timezone's date). */
  day: string;
  passes: number;
  /** Unix milliseconds of the last console edit or deletion (0: none): a pass read before it is discarded. */
  editedAt: number;
  /** Unix milliseconds of the last `/forget group` (0: none): older messages are never learned from again. */
  forgottenAt: number;
}

/** Groups' activity and learned expressions, on either backend. */
export interface GroupStore {
  /**
   * Every group chat with a stored message, newest activity first (at most `limit`), with its
   * counts over the day before `now` (read from each group's newest messages, at most
   * ACTIVITY_SCAN of them).
   */
  activity(now: number, limit: number): Promise<GroupActivity[]>;
  expressions(sessionId: string): Promise<GroupExpression[]>;
  progress(sessionId: string): Promise<ExpressionProgress>;
  /** Counts a learning pass on `day`. */
  countPass(sessionId: string, day: string): Promise<void>;
  /**
   * Replaces the group's expressions with what a pass learned, unless they were edited or
   * forgotten since `editedAt` (the progress the pass read): then nothing changes and it
   * resolves false.
   */
  replaceLearned(sessionId: string, entries: NewExpression[], editedAt: number, at: number): Promise<boolean>;
  /** Changes one expression's texts; resolves with it, or undefined when there is none with that id. */
  edit(
    sessionId: string,
    id: number,
    change: NewExpression,
    at: number,
  ): Promise<GroupExpression | undefined>;
  /** Deletes one; resolves false when there was none. */
  delete(sessionId: string, id: number, at: number): Promise<boolean>;
  /** Deletes every expression of the group; what was said before `at` is never learned from again. */
  forget(sessionId: string, at: number): Promise<number>;
}
