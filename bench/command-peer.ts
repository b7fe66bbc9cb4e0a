/**
 * The OneBot side of the command benchmark, in its own process: it dials the bot's reverse
 * WebSocket, sends `ping N` group messages and times each until `pong N` comes back as a
 * send_group_msg action. First one at a time (latency), then with `inFlight` outstanding
 * (throughput). argv JSON: { url, selfId, warmup, sequential, concurrent, inFlight }.
 */
import { WebSocket } from "ws";

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

const socket = new WebSocket(job.url, { headers: { "X-Self-ID": job.selfId, "X-Client-Role": "Universal" } });
socket.on("message", (data) => {
  const request = JSON.parse(String(data)) as {
    action: string;
    params: Record<string, unknown>;
    echo: unknown;
  };
  if (request.action === "send_group_msg") {
    socket.send(
      JSON.stringify({ status: "ok", retcode: 0, data: { message_id: ++messageId }, echo: request.echo }),
    );
    const segments = request.params.message as Array<{ type: string; data: { text?: string } }>;
    const text = segments.map((segment) => segment.data.text ?? "").join("");
    waiting.get(text)?.();
    waiting.delete(text);
    return;
  }
  const answer = request.action === "get_login_info" ? { user_id: Number(job.selfId), nickname: "紬" } : {};
  socket.send(JSON.stringify({ status: "ok", retcode: 0, data: answer, echo: request.echo }));
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
  const user = 800_000 + (n % 97);
  socket.send(
    JSON.stringify({
      time: Math.floor(Date.now() / 1000),
      self_id: Number(job.selfId),
      post_type: "message",
      message_type: "group",
      sub_type: "normal",
      message_id: ++messageId,
      group_id: GROUP,
      user_id: user,
      message: [{ type: "text", data: { text: `ping ${n}` } }],
      raw_message: `ping ${n}`,
      font: 0,
      sender: { user_id: user, nickname: `user${user}`, card: "", role: "member" },
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
