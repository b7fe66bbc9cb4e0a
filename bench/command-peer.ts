/**
 * The OneBot side of the command benchmark, in its own process (the tests' stand-in): it
 * dials the bot's reverse WebSocket, sends `ping N` group messages and times each until
 * `pong N` comes back as a send_group_msg action. First one at a time (latency), then with
 * `inFlight` outstanding (throughput, and each ping's latency under that load). argv JSON: { url, selfId, warmup, sequential, concurrent, inFlight }.
 */
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { sleep } from "../test/support/wait.ts";

interface Job {
  url: string;
  selfId: string;
  warmup: number;
  sequential: number;
  concurrent: number;
  inFlight: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const GROUP = "700001";
/** Pending pings by the answer they wait for (`pong N`). */
const waiting = new Map<string, () => void>();
let sent = 0;

const qq = new OneBotStandIn({ selfId: job.selfId, nickname: "紬", keepHistory: false });
qq.onSent((answer) => {
  waiting.get(answer.text)?.();
  waiting.delete(answer.text);
});

function ping(): Promise<number> {
  const n = ++sent;
  const started = performance.now();
  const answered = new Promise<number>((resolve) =>
    waiting.set(`pong ${n}`, () => resolve(performance.now() - started)),
  );
  qq.pushGroupMessage({
    groupId: GROUP,
    userId: String(800_000 + (n % 97)),
    message: [{ type: "text", data: { text: `ping ${n}` } }],
  });
  return answered;
}

async function run(): Promise<void> {
  await qq.connectReverse(job.url);
  // Let the bot see the connection (get_login_info) before timing anything.
  await sleep(200);
  for (let i = 0; i < job.warmup; i++) await ping();
  const latencies: number[] = [];
  for (let i = 0; i < job.sequential; i++) latencies.push(await ping());
  const started = performance.now();
  let issued = 0;
  const concurrentLatencies: number[] = [];
  await Promise.all(
    Array.from({ length: job.inFlight }, async () => {
      while (issued < job.concurrent) {
        issued++;
        concurrentLatencies.push(await ping());
      }
    }),
  );
  const concurrentMs = performance.now() - started;
  // Some hundred kB: more than a pipe holds, so exit only once all of it is written.
  await new Promise((resolve) =>
    process.stdout.write(
      `${JSON.stringify({ latencies, concurrentLatencies, concurrent: issued, concurrentMs })}\n`,
      resolve,
    ),
  );
  await qq.close();
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`command peer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
