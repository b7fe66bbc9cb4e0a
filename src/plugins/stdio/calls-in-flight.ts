import { randomUUID } from "node:crypto";
import type { CallContext } from "../../components/types.ts";
import type { Logger } from "../../log/logger.ts";
import type { OutgoingMessage } from "../../sdk/types.ts";
import { errorMessage } from "../../util/values.ts";
import type { FetchPicturePush, JsonObject, MemoryPush, SendMessagePush } from "./protocol.ts";

/** One open call: its id on the wire, and a wait for the messages it sent meanwhile. */
export interface OpenCall {
  id: string;
  /** Resolves once every message the plugin sent for this call is out; closes the call. */
  close(): Promise<void>;
}

interface CallEntry {
  call: CallContext;
  /** A hook's call may fetch its message's pictures but not send into the chat. */
  maySend: boolean;
  sends: Promise<void>[];
}

/**
 * The calls a plugin process is answering, by call id, so a `send_message` push reaches the
 * chat of its call (tools and commands), a `fetch_picture` push its message's pictures and a
 * `memory_*` push the memory of its chat (hooks too). A call's answer is taken only after its
 * messages are out, so what a tool sent comes before the reply the model writes from its result.
 */
export class CallsInFlight {
  private readonly calls = new Map<string, CallEntry>();

  constructor(
    private readonly logger: Logger,
    private readonly pluginId: string,
  ) {}

  open(call: CallContext, options: { maySend: boolean } = { maySend: true }): OpenCall {
    // The planner's call id is unique per turn only; the wire id must be unique per process.
    const id = `${call.callId ?? "call"}:${randomUUID()}`;
    const entry: CallEntry = { call, maySend: options.maySend, sends: [] };
    this.calls.set(id, entry);
    return {
      id,
      close: async () => {
        await Promise.all(entry.sends);
        this.calls.delete(id);
      },
    };
  }

  /** A `send_message` push: sent into the call's chat; an unknown call id is skipped with a log line. */
  send(push: SendMessagePush): void {
    const entry = this.calls.get(push.callId);
    if (!entry?.maySend) {
      this.logger.warn(
        { callId: push.callId },
        entry
          ? "plugin sent a message for a hook's call, which cannot send; skipped"
          : "plugin sent a message for a call that is not in flight; skipped",
      );
      return;
    }
    const { bot, event } = entry.call;
    const message = (
      Array.isArray(push.message) || typeof push.message === "string" ? push.message : [push.message]
    ) as OutgoingMessage;
    entry.sends.push(
      bot.send(event, message).then(
        () => undefined,
        (error: unknown) => this.logger.warn(`plugin message not sent: ${errorMessage(error)}`),
      ),
    );
  }

  /**
   * A `fetch_picture` push: the params of the `picture` line answering it, the picture's
   * bytes in base64 or why there are none. Fetched with every limit of the bot's own fetches.
   */
  async fetchPicture(push: FetchPicturePush): Promise<JsonObject> {
    const requestId = push.requestId ?? null;
    const entry = this.calls.get(push.callId);
    const picture = entry?.call.pictures[push.index];
    if (!picture) {
      const error = entry ? `the message has no picture ${push.index}` : "the call is not in flight";
      return { requestId, error };
    }
    try {
      const { mime, bytes, sha256 } = await picture.fetch();
      return { requestId, mime, sha256, base64: bytes.toString("base64") };
    } catch (error) {
      return { requestId, error: errorMessage(error) };
    }
  }

  /**
   * A `memory_recall`, `memory_remember` or `memory_forget` push: the params of the `memory`
   * line answering it — `memories`, `memory` or `forgotten`, or an `error` saying why not.
   */
  async memory(push: MemoryPush): Promise<JsonObject> {
    const requestId = push.requestId ?? null;
    const entry = this.calls.get(push.callId);
    if (!entry) return { requestId, error: "the call is not in flight" };
    const memory = entry.call.memoryFor(this.pluginId);
    const about =
      push.method === "memory_forget" || push.about === undefined ? {} : { about: String(push.about) };
    try {
      switch (push.method) {
        case "memory_recall": {
          const limit = push.limit === undefined ? {} : { limit: push.limit };
          return { requestId, memories: await memory.recall(push.query, { ...about, ...limit }) };
        }
        case "memory_remember":
          return { requestId, memory: await memory.remember(push.content, about) };
        case "memory_forget":
          return { requestId, forgotten: await memory.forget(push.id) };
      }
    } catch (error) {
      return { requestId, error: errorMessage(error) };
    }
  }
}
