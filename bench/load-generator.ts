/**
 * A OneBot implementation under load (the tests' stand-in), run as its own process so it does
 * not share the bot's event loop: it dials a reverse WebSocket and floods group messages,
 * answering any action. Reads its job from argv as JSON: { url, selfId, count, groups, offset }.
 * Prints `{"open":true}` once connected, floods when a line arrives on stdin (so the bench times
 * only the flood), and prints `{"sentMs": …}` when every frame has been written to the socket.
 */
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { sleep } from "../test/support/wait.ts";

interface Job {
  url: string;
  selfId: string;
  count: number;
  groups: number;
  /** First message id (so several runs never reuse ids). */
  offset: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const qq = new OneBotStandIn({ selfId: job.selfId, nickname: "紬", keepHistory: false });

async function flood(): Promise<void> {
  const [socket] = qq.sockets();
  if (!socket) throw new Error("not connected");
  const started = performance.now();
  for (let i = 0; i < job.count; i++) {
    qq.pushGroupMessage({
      groupId: String(100_000 + (i % job.groups)),
      userId: String(200_000 + (i % 997)),
      messageId: job.offset + i,
      message: [{ type: "text", data: { text: `第 ${i} 条消息：今天的天气不错，大家吃了吗？` } }],
    });
    // Yield now and then so the socket's buffer drains like a real sender's would.
    if (socket.bufferedAmount > 4 * 1024 * 1024) await sleep(1);
  }
  while (socket.bufferedAmount > 0) await sleep(1);
  process.stdout.write(`${JSON.stringify({ sentMs: performance.now() - started })}\n`);
}

qq.connectReverse(job.url).then(
  (socket) => {
    void socket.closed.then(() => process.exit(0));
    process.stdout.write(`${JSON.stringify({ open: true })}\n`);
    process.stdin.once("data", () => void flood());
  },
  (error: unknown) => {
    process.stderr.write(`load generator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
