/**
 * QQ accounts (OneBot stand-ins) that @-mention the bot in groups, and what the bot answered in
 * each group: the load side of the scale-out bench (scale-out.ts). Groups are numbered over all
 * accounts, so a group id names one conversation.
 */
import { mention } from "../test/support/messages.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";

const FIRST_ACCOUNT = 10_001;
const FIRST_GROUP = 1_000_000;
const ASKER = "30001";

export class MentionLoad {
  readonly accounts: OneBotStandIn[];
  /** Group id → replies the bot sent there. */
  readonly #replies = new Map<string, number>();
  /** Group id → the pending mention's resolver, called at the group's next reply. */
  readonly #waiting = new Map<string, () => void>();
  #nextGroup = FIRST_GROUP;

  constructor(accounts: number) {
    this.accounts = Array.from({ length: accounts }, (_, index) => {
      // Without history: tens of thousands of messages pass, answers are followed with onSent.
      const standIn = new OneBotStandIn({
        selfId: String(FIRST_ACCOUNT + index),
        nickname: "紬",
        keepHistory: false,
      });
      standIn.onSent((sent) => {
        if (sent.groupId === undefined) return;
        this.#replies.set(sent.groupId, (this.#replies.get(sent.groupId) ?? 0) + 1);
        this.#waiting.get(sent.groupId)?.();
        this.#waiting.delete(sent.groupId);
      });
      return standIn;
    });
  }

  /** A group no mention has gone to yet. */
  newGroup(): string {
    return String(this.#nextGroup++);
  }

  /** Whether account `account` has a connection to a bot (a mention pushed now reaches one). */
  connected(account: number): boolean {
    return this.accounts[account]!.sockets().length > 0;
  }

  /**
   * Pushes a mention into `group` through account `account`; `answered` resolves at the
   * group's next reply. `messageId` is the id the bot logs the message under.
   */
  mention(account: number, group: string): { messageId: string; answered: Promise<void> } {
    const answered = new Promise<void>((resolve) => this.#waiting.set(group, resolve));
    const standIn = this.accounts[account]!;
    const messageId = standIn.pushGroupMessage({
      groupId: group,
      userId: ASKER,
      message: mention("在吗？问你个事", standIn.selfId),
    });
    return { messageId, answered };
  }

  /** How many replies the bot sent to `group`. */
  replies(group: string): number {
    return this.#replies.get(group) ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all(this.accounts.map((standIn) => standIn.close()));
  }
}
