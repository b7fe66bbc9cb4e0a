/**
 * `POST /onebot/v11/http` (HTTP event mode) as an attacker meets it, over raw sockets: without
 * a `secret`, a web page (another origin, a rebound name) cannot post events, while NapCat's
 * own POSTs (no Origin, Host 127.0.0.1:port) still can; bodies are bounded in size and time.
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_BODY_TIMEOUT_MS, MAX_EVENT_POST_BYTES } from "../../src/adapters/onebot/http-mode.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { GROUP, groupMessageEvent, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { openRequest, rawRequest } from "../support/raw-http.ts";
import { sleep } from "../support/wait.ts";

const EVENT_PATH = "/onebot/v11/http";
const ADMIN = "39999";
const MiB = 1024 * 1024;

let bot: BotHarness | undefined;
let botProcess: BotProcess | undefined;
let qq: OneBotStandIn | undefined;

afterEach(async () => {
  await qq?.close();
  qq = undefined;
  await bot?.dispose();
  bot = undefined;
  await botProcess?.dispose();
  botProcess = undefined;
});

/** A bot in HTTP mode without a secret (allowed on loopback), its API served by the stand-in. */
async function startHttpBot(
  server: Record<string, unknown> = {},
): Promise<{ bot: BotHarness; port: number }> {
  qq = new OneBotStandIn({ selfId: SELF });
  const api = await qq.listenHttp();
  bot = await startBot({
    config: {
      server,
      adapters: [{ id: "qq", mode: "http", url: api, path: EVENT_PATH }],
      bot: { admins: [ADMIN] },
    },
  });
  await bot.waitForLog((line) => line.msg === "onebot connection opened");
  return { bot, port: Number(new URL(bot.baseUrl).port) };
}

/** The admin's `/plugins` in the group, as NapCat would post it. */
function adminCommand(messageId: number): string {
  return groupMessageEvent(messageId, ADMIN, plain("/plugins"));
}

function received(harness: BotHarness, messageId: number): boolean {
  return harness.logs.some((line) => line.msg === "message received" && line.messageId === String(messageId));
}

describe("HTTP event POSTs without a secret", () => {
  it("refuses another origin's page and a rebound name (403, nothing runs), and takes NapCat's POST", async () => {
    const { bot, port } = await startHttpBot();
    // What a page can send without a preflight: a "simple" POST with text/plain.
    const forged: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: `http://localhost:${port + 1}` },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { host: `rebound.example:${port}` },
    ];
    for (const [index, headers] of forged.entries()) {
      const answer = await rawRequest(port, {
        method: "POST",
        target: EVENT_PATH,
        headers: { "content-type": "text/plain", ...headers },
        body: adminCommand(7001 + index),
      });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
    }
    await sleep(300);
    for (const index of forged.keys()) expect(received(bot, 7001 + index)).toBe(false);
    expect(qq!.sent).toEqual([]);
    expect(bot.logs.filter((line) => line.msg === "request refused")).toHaveLength(forged.length);

    const napcat = await rawRequest(port, {
      method: "POST",
      target: EVENT_PATH,
      headers: { "content-type": "application/json", "x-self-id": SELF },
      body: adminCommand(7100),
    });
    expect(napcat.status).toBe(204);
    const answer = await qq!.waitForSent(undefined, 8_000);
    expect(answer.groupId).toBe(GROUP);
    expect(received(bot, 7100)).toBe(true);
  });

  it("refuses another origin's page even when the console has a token", async () => {
    const { bot, port } = await startHttpBot({ token: "console-token" });
    const answer = await rawRequest(port, {
      method: "POST",
      target: EVENT_PATH,
      headers: { "content-type": "text/plain", origin: "http://evil.example" },
      body: adminCommand(7200),
    });
    expect(answer.status).toBe(403);
    await sleep(300);
    expect(received(bot, 7200)).toBe(false);
    expect(qq!.sent).toEqual([]);
  });
});

describe("HTTP event bodies", () => {
  it("refuses a body declared larger than the limit with 413 before reading it", async () => {
    const { port } = await startHttpBot();
    const { socket, answer } = openRequest(port, {
      method: "POST",
      target: EVENT_PATH,
      headers: { "content-type": "application/json", "content-length": String(15 * MiB) },
    });
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    const started = Date.now();
    expect((await answer).status).toBe(413);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("cuts a chunked body at the limit with 413", async () => {
    const { bot, port } = await startHttpBot();
    const { socket, answer } = openRequest(port, {
      method: "POST",
      target: EVENT_PATH,
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    let answered = false;
    void answer.then(() => {
      answered = true;
    });
    await streamChunks(socket, 4 * MiB, () => answered);
    expect((await answer).status).toBe(413);
    await bot.waitForLog(
      (line) =>
        line.msg === "request body refused" && line.why === `body larger than ${MAX_EVENT_POST_BYTES} bytes`,
    );
  });

  it("cuts a stalled body off with 408 after the body timeout", async () => {
    const { bot, port } = await startHttpBot();
    const started = Date.now();
    const { socket, answer } = openRequest(port, {
      method: "POST",
      target: EVENT_PATH,
      headers: { "content-type": "application/json", "content-length": "1000" },
      timeoutMs: EVENT_BODY_TIMEOUT_MS + 5_000,
    });
    socket.write('{"post_type":"message",');
    expect((await answer).status).toBe(408);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(EVENT_BODY_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(EVENT_BODY_TIMEOUT_MS + 2_000);
    expect(bot.logs.some((line) => line.msg === "request body refused")).toBe(true);
  });

  it("keeps the bot's memory bounded under 40 stalled 8 MB POSTs", { timeout: 60_000 }, async () => {
    // Its own process, so its resident memory is the bot's alone. Nothing answers at `url`:
    // the POST path is served whether or not the API is reachable.
    botProcess = await startBotProcess({
      config: { adapters: [{ id: "qq", mode: "http", url: "http://127.0.0.1:9", path: EVENT_PATH }] },
    });
    const port = Number(new URL(botProcess.baseUrl).port);
    const pid = botProcess.child.pid!;
    await sleep(1_000);
    const before = residentBytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
    }, 20);
    const posts = Array.from({ length: 40 }, () =>
      openRequest(port, {
        method: "POST",
        target: EVENT_PATH,
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        timeoutMs: 15_000,
      }),
    );
    // Each sends 8 MB as fast as the bot reads it, then stalls without ending the body.
    await Promise.all(posts.map(({ socket }) => streamChunks(socket, 8 * MiB, () => socket.destroyed)));
    await sleep(2_000);
    clearInterval(sampler);
    peak = Math.max(peak, residentBytes(pid));
    for (const { socket } of posts) socket.destroy();

    expect(peak - before).toBeLessThan(100 * MiB);
    expect(botProcess.logs.filter((line) => line.msg === "request body refused")).toHaveLength(40);
  });
});

/** Writes `size` bytes of chunked body from one reused buffer, until done or `stop()`; never ends it. */
async function streamChunks(socket: Socket, size: number, stop: () => boolean): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
  for (let sent = 0; sent < size && !stop() && !socket.destroyed; sent += chunk.length) {
    if (!socket.write(framed)) {
      await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), sleep(500)]);
    }
  }
}

function residentBytes(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(line?.[1] ?? 0) * 1024;
}
