/**
 * The other side of the turn benchmark, in its own process: a zero-latency model (the tests'
 * scripted model server: planner requests get a `reply` call, replyer requests a short text)
 * and a OneBot implementation (the tests' stand-in) dialling the bot's reverse WebSocket that
 * @-mentions the bot and times each mention until the bot's answer arrives.
 * argv JSON: { selfId, warmup, sequential, concurrent, groups }. Prints `{"llm": baseUrl}` first,
 * then waits for a stdin line `{"url": botWsUrl}`, runs, and prints the timings.
 */
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";

interface Job {
  selfId: string;
  warmup: number;
  sequential: number;
  concurrent: number;
  groups: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const USAGE = { promptTokens: 500, completionTokens: 10 };

const llm = await ScriptedLlmServer.start({
  whenEmpty: (request) =>
    request.toolNames.length > 0
      ? { toolCalls: [{ name: "reply", arguments: {} }], usage: USAGE }
      : { text: "收到，马上来。", usage: USAGE },
});
const qq = new OneBotStandIn({ selfId: job.selfId, nickname: "紬", keepHistory: false });
/** The group's pending mention, resolved when the bot's answer to that group arrives. */
const waiting = new Map<string, () => void>();
qq.onSent((sent) => {
  if (sent.groupId === undefined) return;
  waiting.get(sent.groupId)?.();
  waiting.delete(sent.groupId);
});

process.stdout.write(`${JSON.stringify({ llm: llm.baseUrl })}\n`);
process.stdin.once("data", (line) => void run((JSON.parse(String(line)) as { url: string }).url));

function mention(group: number): Promise<number> {
  const started = performance.now();
  const answered = new Promise<number>((resolve) => {
    waiting.set(String(group), () => resolve(performance.now() - started));
  });
  qq.pushGroupMessage({
    groupId: String(group),
    userId: String(300_000 + group),
    message: [
      { type: "at", data: { qq: job.selfId } },
      { type: "text", data: { text: " 在吗？问你个事" } },
    ],
  });
  return answered;
}

async function run(url: string): Promise<void> {
  await qq.connectReverse(url);
  for (let i = 0; i < job.warmup; i++) await mention(400_000 + (i % job.groups));
  const latencies: number[] = [];
  for (let i = 0; i < job.sequential; i++) latencies.push(await mention(500_000 + (i % job.groups)));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let done = 0;
  await Promise.all(
    Array.from({ length: job.groups }, async (_, g) => {
      while (done < job.concurrent) {
        done++;
        await mention(600_000 + g);
      }
    }),
  );
  const concurrentMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const peerCpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(`${JSON.stringify({ latencies, concurrentTurns: done, concurrentMs, peerCpuMs })}\n`);
  await qq.close();
  await llm.close();
}
