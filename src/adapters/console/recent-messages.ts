import type { ChatMessage } from "../../message/inbound.ts";

/** How many playground messages `get_msg` can find, and how many bytes of them (inline media) are kept. */
const MAX_MESSAGES = 2_000;
const MAX_BYTES = 32 * 1024 * 1024;

/** The newest playground messages by id, bounded in count and size so memory stays bounded. */
export class RecentMessages {
  private readonly byId = new Map<string, { message: ChatMessage; bytes: number }>();
  private bytes = 0;

  add(message: ChatMessage): void {
    const bytes = JSON.stringify(message.segments).length;
    this.byId.set(message.messageId, { message, bytes });
    this.bytes += bytes;
    while (this.byId.size > MAX_MESSAGES || this.bytes > MAX_BYTES) {
      const [oldestId, oldest] = this.byId.entries().next().value!;
      this.byId.delete(oldestId);
      this.bytes -= oldest.bytes;
    }
  }

  get(messageId: string): ChatMessage | undefined {
    return this.byId.get(messageId)?.message;
  }
}
