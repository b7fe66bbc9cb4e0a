import type { ChatMessage } from "../../message/inbound.ts";

/** How many playground messages `get_msg` can find; older ones are forgotten. */
const CAPACITY = 2_000;

/** The newest playground messages by id, bounded so a long session cannot grow memory. */
export class RecentMessages {
  private readonly byId = new Map<string, ChatMessage>();

  add(message: ChatMessage): void {
    this.byId.set(message.messageId, message);
    if (this.byId.size > CAPACITY) {
      const oldest = this.byId.keys().next().value;
      if (oldest !== undefined) this.byId.delete(oldest);
    }
  }

  get(messageId: string): ChatMessage | undefined {
    return this.byId.get(messageId);
  }
}
