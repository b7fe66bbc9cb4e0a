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
import type { WebSocket } from "ws";
import { dialReverse, groupMessageFrame } from "./onebot-wire.ts";

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
  const socket = dialReverse(url, job.selfId, (request) => {
    if (request.action !== "send_group_msg") return undefined;
    const group = String(request.params.group_id);
    waiting.get(group)?.();
    waiting.delete(group);
    return { message_id: ++messageId };
  });
  socket.on("open", () => void run(socket));
}

function mention(socket: WebSocket, group: number): Promise<number> {
  const started = performance.now();
  const answered = new Promise<number>((resolve) => {
    waiting.set(String(group), () => resolve(performance.now() - started));
  });
  socket.send(
    groupMessageFrame({
      selfId: job.selfId,
      messageId: ++messageId,
      groupId: group,
      userId: 300_000 + group,
      segments: [
        { type: "at", data: { qq: job.selfId } },
        { type: "text", data: { text: " 在吗？问你个事" } },
      ],
      raw: `[CQ:at,qq=${job.selfId}] 在吗？问你个事`,
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
