/**
 * The message path as the bot builds it: its stages and turn gates in order, and where each
 * kind of message stops. The model side is a recording turn runner; everything before it is real.
 */
import { describe, expect, it } from "vitest";
import type { TurnRunner } from "../../src/agent/turn-runner.ts";
import { createMessagePath } from "../../src/app/message-path.ts";
import type { Batch } from "../../src/chat/batch.ts";
import { KeyedQueue } from "../../src/chat/keyed-queue.ts";
import type { TurnRequest } from "../../src/chat/session-runner.ts";
import type { Cluster } from "../../src/cluster/cluster.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import type { Segment } from "../../src/message/segment.ts";
import { MonitorHub } from "../../src/monitor/monitor.ts";
import { Participation } from "../../src/participation/participation.ts";
import type { HistoryQuery, MessageStore } from "../../src/store/types.ts";
import { groupChatMessage, SELF } from "../support/messages.ts";
import { captureLog } from "../support/store.ts";
import { waitFor } from "../support/wait.ts";

class ArrayStore implements MessageStore {
  readonly rows: ChatMessage[] = [];
  append(message: ChatMessage): void {
    this.rows.push(message);
  }
  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    return this.rows.filter((m) => m.sessionId === query.sessionId).slice(-query.limit);
  }
  async findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    return this.rows.findLast((m) => m.sessionId === sessionId && m.messageId === messageId);
  }
  async markRecalled(): Promise<number> {
    return 0;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** The path over real chat stages; `overLimit` refuses every new turn, `cluster` adds its stages. */
function pathFor(options: { cluster?: Cluster; overLimit?: boolean; unanswered?: Batch } = {}) {
  const validation = validateConfig({
    access: { deny: ["group:666"] },
    // A trigger's window closes at once: its batch goes to the session runner in the same call.
    chat: { realtime: { windowMs: 0 } },
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  const store = new ArrayStore();
  const noticed: string[] = [];
  const commands: string[] = [];
  const turns: TurnRequest[] = [];
  let unanswered = options.unanswered;
  const turnRunner: Pick<TurnRunner, "run"> = {
    run: async (request) => {
      turns.push(request);
      const left = unanswered;
      unanswered = undefined;
      return left;
    },
  };
  const path = createMessagePath({
    messages: store,
    commands: {
      dispatch: (message) => {
        const isCommand = message.segments.some(
          (s) => s.type === "text" && String(s.data.text).startsWith("/"),
        );
        if (isCommand) commands.push(message.messageId);
        return isCommand;
      },
    },
    learners: [{ noticed: (message) => noticed.push(message.messageId) }],
    groupDecisions: { stage: (arrival) => ({ go: arrival }) },
    queue: new KeyedQueue(() => {}),
    limits: { admit: async (batch) => (options.overLimit ? undefined : batch) },
    pluginsReady: { gate: (request) => ({ go: request }) },
    turnRunner,
    cluster: options.cluster,
    platformAdapters: new Map(),
    outbox: { sendsInFlight: () => undefined },
    adapters: new Map(),
    config: () => validation.config,
    participation: new Participation({
      inChat: () => ({
        participation: validation.config.chat.participation,
        otherBots: [],
        names: [],
        interests: [],
      }),
      clock: () => zonedClock(undefined),
      tellResting: () => undefined,
      monitor: new MonitorHub(),
      logger: captureLog().logger,
    }),
    gate: { allows: async () => true },
    monitor: new MonitorHub(),
    logger: captureLog().logger,
  });
  return { path, store, noticed, commands, turns };
}

/** Segments that @-mention the bot, then the text. */
const mention = (text: string): Segment[] => [
  { type: "at", data: { qq: SELF } },
  { type: "text", data: { text: ` ${text}` } },
];

const now = (fields: Parameters<typeof groupChatMessage>[0]) =>
  groupChatMessage({ time: Date.now(), ...fields });

describe("the message path", () => {
  it("lists every stage a message and a turn pass, in order", () => {
    const { path } = pathFor();
    expect(path.messageStages.names).toEqual([
      "accept",
      "poker's name",
      "store",
      "trigger",
      "access",
      "group decisions",
      "commands",
      "notice",
      "participation",
      "batch",
    ]);
    expect(path.turnGates.names).toEqual(["governor", "limits", "gate model", "plugins", "turn"]);
  });

  it("has the cluster's stages in a cluster: route, pending triggers and ownership", () => {
    const cluster = { shared: {} } as unknown as Cluster;
    const { path } = pathFor({ cluster });
    expect(path.messageStages.names).toEqual([
      "accept",
      "poker's name",
      "route",
      "store",
      "trigger",
      "access",
      "group decisions",
      "commands",
      "notice",
      "participation",
      "pending triggers",
      "batch",
    ]);
    expect(path.turnGates.names).toEqual([
      "ownership",
      "governor",
      "limits",
      "gate model",
      "plugins",
      "turn",
    ]);
  });

  it("takes a trigger through every stage to a turn, and chatter to the digest", async () => {
    const { path, store, noticed, turns } = pathFor();
    const trigger = now({ segments: mention("在吗") });
    expect(path.messageStages.run({ message: trigger })).toEqual({ passed: true });
    expect(path.messageStages.run({ message: now({ text: "随便聊聊" }) })).toEqual({ passed: true });
    expect(store.rows).toHaveLength(2);
    expect(noticed).toHaveLength(2);
    await waitFor(() => turns.length === 1, 2_000, "the trigger's turn");
    expect(turns[0]!.batch.triggerIds).toEqual([trigger.messageId]);
  });

  it("stops a message where a stage refuses it, saying why", () => {
    const { path, store, noticed, commands } = pathFor();
    const denied = now({ groupId: "666", segments: mention("在吗") });
    expect(path.messageStages.run({ message: denied })).toEqual({
      stoppedAt: "access",
      reason: "access rule access.deny: group:666",
    });
    const command = now({ text: "/help" });
    expect(path.messageStages.run({ message: command })).toEqual({
      stoppedAt: "commands",
      reason: "a command",
    });
    expect(path.messageStages.run({ message: command })).toEqual({
      stoppedAt: "accept",
      reason: "a repeated event",
    });
    // Stored before the access stage, as context; neither noticed nor batched.
    expect(store.rows.map((m) => m.messageId)).toEqual([denied.messageId, command.messageId]);
    expect(noticed).toEqual([]);
    expect(commands).toEqual([command.messageId]);
  });

  it("lets no new turn past the limits, but runs a crash-interrupted turn again through the same runner", async () => {
    const { path, turns } = pathFor({ overLimit: true });
    const batch: Batch = { kind: "realtime", sessionId: "s", messages: [now({})], triggerIds: [] };
    expect(await path.turnGates.run({ batch, absorbInto: () => undefined })).toEqual({
      stoppedAt: "limits",
      reason: "over a limit",
    });
    const ran = new Promise<void>((resolve) =>
      path.sessions.inOrder(batch.sessionId, async () => {
        await path.sessions.runAgain(batch, { replyId: "before-the-crash" });
        resolve();
      }),
    );
    await ran;
    expect(turns.map((turn) => turn.rerunOf?.replyId)).toEqual(["before-the-crash"]);
  });

  it("starts the session's next turn with the triggers a turn left unread", async () => {
    const later = now({ segments: mention("还有一个问题") });
    const unanswered: Batch = {
      kind: "realtime",
      sessionId: later.sessionId,
      messages: [later],
      triggerIds: [later.messageId],
    };
    const { path, turns } = pathFor({ unanswered });
    path.fromPlatform(now({ segments: mention("在吗") }));
    await waitFor(() => turns.length === 2, 2_000, "the next turn");
    expect(turns[1]!.batch.triggerIds).toEqual([later.messageId]);
  });
});
