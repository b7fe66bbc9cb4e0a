import pg from "pg";
import { it } from "vitest";
import { startBot } from "./support/bot-harness.ts";
import { mention, SELF } from "./support/messages.ts";
import { OneBotStandIn } from "./support/onebot-standin.ts";
import { freshPostgresUrl } from "./support/postgres-server.ts";
import { ScriptedLlmServer } from "./support/scripted-llm-server.ts";

// Counts every statement sent to PostgreSQL (scratch instrumentation).
let log: string[] = [];
let t0 = 0;
const original = pg.Client.prototype.query;
(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text: string; name?: string };
  const text = typeof first === "string" ? first : `${first.name ?? ""}:${first.text}`;
  const at = performance.now() - t0;
  const line = `${at.toFixed(1)} ${text.replace(/\s+/g, " ").slice(0, 60)}`;
  const index = log.push(line) - 1;
  const own = log;
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === "function")
    args[last] = (...r: unknown[]) => {
      own[index] += ` -> ${(performance.now() - t0).toFixed(1)}`;
      return callback(...r);
    };
  const result = (original as (...a: unknown[]) => unknown).apply(this, args);
  if (result instanceof Promise) void result.then(() => { own[index] += ` -> ${(performance.now() - t0).toFixed(1)}`; }, () => {});
  return result;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const backend of ["sqlite", "postgres", "sqlite", "postgres"]) {
  it(`turn latency ${backend}`, async () => {
    const llm = await ScriptedLlmServer.start({
      whenEmpty: (request) => (request.toolNames.includes("reply") ? { toolCalls: [{ name: "reply", arguments: {} }] } : { text: "在" }),
    });
    const config: Record<string, unknown> = { log: { level: "info" } };
    if (backend === "postgres") config.storage = { url: await freshPostgresUrl() };
    const bot = await startBot({ llm, config });
    const qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    const times: number[] = [];
    const trips: number[] = [];
    let sample: string[] = [];
    for (let i = 0; i < 21; i++) {
      log = [];
      t0 = performance.now();
      const start = performance.now();
      const count = qq.sent.length;
      qq.pushGroupMessage({ groupId: String(30000 + i), userId: "1", message: mention("hi") });
      while (qq.sent.length === count) await new Promise((r) => setTimeout(r, 2));
      times.push(Math.round(performance.now() - start));
      await new Promise((r) => setTimeout(r, 300));
      trips.push(log.length);
      if (i === 10) sample = log;
      if (backend === "postgres") console.log("turn", i, times[i], log.filter((l) => / -> /.test(l) && !/^\S+ (BEGIN|SAVEPOINT|RELEASE|COMMIT)/.test(l)).map((l) => { const [a, ...rest] = l.split(" "); const b = rest.pop(); return `${rest[0]}:${a}->${b}`; }).join(" | "));
    }
    console.log(backend, "median", median(times), "ms;", times.join(" "));
    if (backend === "postgres") console.log("round trips per turn (300ms window)", median(trips), trips.join(" "), "\n" + sample.join("\n"));
    await qq.close();
    await bot.dispose();
    await llm.close();
  }, 60_000);
}
