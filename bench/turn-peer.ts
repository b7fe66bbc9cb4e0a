/**
 * The other side of the turn benchmark, in its own process: a zero-latency OpenAI-compatible
 * model (planner requests get a `reply` call, replyer requests a short text) and a OneBot
 * implementation dialling the bot's reverse WebSocket that @-mentions the bot and times each
 * mention until the bot's answer arrives.
 * argv JSON: { selfId, warmup, sequential, concurrent, groups }. Prints `{"llm": baseUrl}` first,
 * then waits for a stdin line `{"url": botWsUrl}`, runs, and prints the timings.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket } from "ws";

interface Job {
  selfId: string;
  warmup: number;
  sequential: number;
  concurrent: number;
  groups: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;

let completionCounter = 0;
const llm = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { tools?: unknown[]; model: string };
    const id = ++completionCounter;
    const message = body.tools?.length
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: `call_${id}`, type: "function", function: { name: "reply", arguments: "{}" } }],
        }
      : { role: "assistant", content: "收到，马上来。" };
    const payload = JSON.stringify({
      id: `cmpl_${id}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: body.tools?.length ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 500, completion_tokens: 10, total_tokens: 510 },
    });
    response.writeHead(200, { "content-type": "application/json" }).end(payload);
  });
});
llm.listen(0, "127.0.0.1", () => {
  const { port } = llm.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ llm: `http://127.0.0.1:${port}/v1` })}\n`);
  process.stdin.once("data", (line) => connect((JSON.parse(String(line)) as { url: string }).url));
});

let messageId = 1_000_000;
const waiting = new Map<string, () => void>();

function connect(url: string): void {
  const socket = new WebSocket(url, { headers: { "X-Self-ID": job.selfId, "X-Client-Role": "Universal" } });
  socket.on("message", (data) => {
    const request = JSON.parse(String(data)) as {
      action: string;
      params: Record<string, unknown>;
      echo: unknown;
    };
    const reply = (payload: unknown) =>
      socket.send(JSON.stringify({ status: "ok", retcode: 0, data: payload, echo: request.echo }));
    if (request.action === "send_group_msg") {
      reply({ message_id: ++messageId });
      const group = String(request.params.group_id);
      waiting.get(group)?.();
      waiting.delete(group);
      return;
    }
    reply(request.action === "get_login_info" ? { user_id: Number(job.selfId), nickname: "紬" } : {});
  });
  socket.on("open", () => void run(socket));
}

function mention(socket: WebSocket, group: number): Promise<number> {
  const started = performance.now();
  const answered = new Promise<number>((resolve) => {
    waiting.set(String(group), () => resolve(performance.now() - started));
  });
  const user = 300_000 + group;
  socket.send(
    JSON.stringify({
      time: Math.floor(Date.now() / 1000),
      self_id: Number(job.selfId),
      post_type: "message",
      message_type: "group",
      sub_type: "normal",
      message_id: ++messageId,
      group_id: group,
      user_id: user,
      message: [
        { type: "at", data: { qq: job.selfId } },
        { type: "text", data: { text: " 在吗？问你个事" } },
      ],
      raw_message: `[CQ:at,qq=${job.selfId}] 在吗？问你个事`,
      font: 0,
      sender: { user_id: user, nickname: `user${user}`, card: "", role: "member" },
    }),
  );
  return answered;
}

async function run(socket: WebSocket): Promise<void> {
  for (let i = 0; i < job.warmup; i++) await mention(socket, 400_000 + (i % job.groups));
  const latencies: number[] = [];
  for (let i = 0; i < job.sequential; i++) latencies.push(await mention(socket, 500_000 + (i % job.groups)));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let done = 0;
  await Promise.all(
    Array.from({ length: job.groups }, async (_, g) => {
      while (done < job.concurrent) {
        done++;
        await mention(socket, 600_000 + g);
      }
    }),
  );
  const concurrentMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const peerCpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(`${JSON.stringify({ latencies, concurrentTurns: done, concurrentMs, peerCpuMs })}\n`);
  socket.close();
  llm.close();
}
