/**
 * A OneBot implementation under load, run as its own process so it does not share the bot's
 * event loop: it dials a reverse WebSocket and floods group messages, answering any action.
 * Reads its job from argv as JSON: { url, selfId, count, groups, offset }. Prints `{"open":true}`
 * once connected, floods when a line arrives on stdin (so the bench times only the flood),
 * and prints `{"sentMs": …}` when every frame has been written to the socket.
 */
import { dialReverse, groupMessageFrame } from "./onebot-wire.ts";

interface Job {
  url: string;
  selfId: string;
  count: number;
  groups: number;
  /** First message id (so several runs never reuse ids). */
  offset: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;

function frame(index: number): string {
  const text = `第 ${index} 条消息：今天的天气不错，大家吃了吗？`;
  return groupMessageFrame({
    selfId: job.selfId,
    messageId: job.offset + index,
    groupId: 100_000 + (index % job.groups),
    userId: 200_000 + (index % 997),
    segments: [{ type: "text", data: { text } }],
    raw: text,
  });
}

const socket = dialReverse(job.url, job.selfId);
socket.on("open", () => {
  process.stdout.write(`${JSON.stringify({ open: true })}\n`);
  process.stdin.once("data", () => void flood());
});

async function flood(): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < job.count; i++) {
    socket.send(frame(i));
    // Yield now and then so the socket's buffer drains like a real sender's would.
    if (socket.bufferedAmount > 4 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await new Promise<void>((resolve) => {
    const check = () => (socket.bufferedAmount === 0 ? resolve() : setTimeout(check, 1));
    check();
  });
  process.stdout.write(`${JSON.stringify({ sentMs: performance.now() - started })}\n`);
}
socket.on("close", () => process.exit(0));
socket.on("error", (error) => {
  process.stderr.write(`load generator: ${error.message}\n`);
  process.exit(1);
});
