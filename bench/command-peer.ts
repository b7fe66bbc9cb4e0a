/**
 * The OneBot side of the command benchmark, in its own process: it dials the bot's reverse
 * WebSocket, sends `ping N` group messages and times each until `pong N` comes back as a
 * send_group_msg action. First one at a time (latency), then with `inFlight` outstanding
 * (throughput). argv JSON: { url, selfId, warmup, sequential, concurrent, inFlight }.
 */
import { dialReverse, groupMessageFrame, sentText } from "./onebot-wire.ts";

interface Job {
  url: string;
  selfId: string;
  warmup: number;
  sequential: number;
  concurrent: number;
  inFlight: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const GROUP = 700_001;
const waiting = new Map<string, () => void>();
let messageId = 5_000_000;
let sent = 0;

const socket = dialReverse(job.url, job.selfId, (request) => {
  if (request.action !== "send_group_msg") return undefined;
  const text = sentText(request);
  waiting.get(text)?.();
  waiting.delete(text);
  return { message_id: ++messageId };
});
socket.on("open", () => void run());
socket.on("error", (error) => {
  process.stderr.write(`command peer: ${error.message}\n`);
  process.exit(1);
});

function ping(): Promise<number> {
  const n = ++sent;
  const started = performance.now();
  const answered = new Promise<number>((resolve) =>
    waiting.set(`pong ${n}`, () => resolve(performance.now() - started)),
  );
  socket.send(
    groupMessageFrame({
      selfId: job.selfId,
      messageId: ++messageId,
      groupId: GROUP,
      userId: 800_000 + (n % 97),
      segments: [{ type: "text", data: { text: `ping ${n}` } }],
      raw: `ping ${n}`,
    }),
  );
  return answered;
}

async function run(): Promise<void> {
  // Let the bot see the connection (get_login_info) before timing anything.
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < job.warmup; i++) await ping();
  const latencies: number[] = [];
  for (let i = 0; i < job.sequential; i++) latencies.push(await ping());
  const started = performance.now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: job.inFlight }, async () => {
      while (issued < job.concurrent) {
        issued++;
        await ping();
      }
    }),
  );
  const concurrentMs = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ latencies, concurrent: issued, concurrentMs })}\n`);
  socket.close();
}
socket.on("close", () => process.exit(0));
