/**
 * The OneBot endpoints as an attacker meets them: the reverse WebSocket of a running bot, dialled
 * over real sockets, and the command line refusing to listen beyond loopback without credentials.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { OneBotStandIn, UpgradeRejectedError } from "../support/onebot-standin.ts";
import { sleep } from "../support/wait.ts";

const ALICE = "30000";
const TOKEN = "onebot-secret-token";
const PATH = "/onebot/v11/ws";
const MiB = 1024 * 1024;

let bot: BotHarness | undefined;
const standIns: OneBotStandIn[] = [];
const rawSockets: Socket[] = [];

afterEach(async () => {
  for (const socket of rawSockets.splice(0)) socket.destroy();
  for (const standin of standIns.splice(0)) await standin.close();
  await bot?.dispose();
  bot = undefined;
});

async function startGuardedBot(): Promise<BotHarness> {
  bot = await startBot({
    config: { adapters: [{ id: "qq", mode: "reverse-ws", path: PATH, accessToken: TOKEN }] },
  });
  return bot;
}

function standIn(selfId: string, accessToken?: string): OneBotStandIn {
  const standin = new OneBotStandIn({ selfId, accessToken });
  standIns.push(standin);
  return standin;
}

interface Health {
  adapters: Array<{ id: string; connected: boolean }>;
}

async function health(harness: BotHarness): Promise<Health> {
  return (await (await fetch(`${harness.baseUrl}/healthz`)).json()) as Health;
}

/** Sends `/help` from a group member and waits for the bot's answer on `qq`'s socket. */
async function helpIsAnswered(qq: OneBotStandIn): Promise<void> {
  const earlier = new Set(qq.sent);
  qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/help" });
  await qq.waitForSent((sent) => !earlier.has(sent) && sent.text.startsWith("命令"), 10_000);
}

describe("the OneBot reverse WebSocket with an access token", () => {
  it("refuses handshakes without the right token, and they cannot evict the connected account", async () => {
    const harness = await startGuardedBot();
    const qq = standIn(SELF, TOKEN);
    const genuine = await qq.connectReverse(harness.wsUrl);
    await helpIsAnswered(qq);

    const intruder = standIn(SELF);
    // Settled together: each refusal is handled however fast the four of them arrive.
    const attempts = await Promise.allSettled([
      intruder.connectReverse(harness.wsUrl),
      intruder.connectReverse(harness.wsUrl, { accessToken: "guess" }),
      intruder.connectReverse(`${harness.wsUrl}?access_token=guess`),
      intruder.connectReverse(harness.wsUrl, { headers: { Authorization: "Bearer" } }),
    ]);
    for (const attempt of attempts) {
      expect(attempt.status).toBe("rejected");
      const reason = (attempt as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(UpgradeRejectedError);
      expect(reason).toMatchObject({ status: 401 });
    }

    expect(genuine.isOpen).toBe(true);
    expect((await health(harness)).adapters).toEqual([{ id: "qq", connected: true }]);
    await helpIsAnswered(qq);
    expect(JSON.stringify(harness.logs)).not.toContain("guess");
  });

  it("refuses a 40 MB frame at its header with close code 1009, without buffering it", async () => {
    const harness = await startGuardedBot();
    const qq = standIn(SELF, TOKEN);
    await qq.connectReverse(harness.wsUrl);
    await helpIsAnswered(qq);

    // A second account holding the token sends the frame, streamed from one small buffer so
    // that only the bot's side could account for tens of megabytes.
    const raw = await dialRawWebSocket(harness.wsUrl, {
      Authorization: `Bearer ${TOKEN}`,
      "X-Self-ID": "10001",
    });
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 2);
    const closeCode = raw.closeCode();
    await streamFrame(raw.socket, 40 * MiB, closeCode);
    const code = await Promise.race([closeCode, sleep(3_000).then(() => "no close frame")]);
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);

    expect(code).toBe(1009);
    expect(rssPeak - rssBefore).toBeLessThan(16 * MiB);
    await harness.waitForLog(
      (line) => line.msg === "onebot frame larger than the limit refused, connection closed (1009)",
    );
    expect(qq.sockets()).toHaveLength(1);
    await helpIsAnswered(qq);
  });

  it("accepts at most 16 connections; a reconnecting account still replaces its own", async () => {
    const harness = await startGuardedBot();
    const accounts = Array.from({ length: 16 }, (_, index) => standIn(String(10_000 + index), TOKEN));
    for (const account of accounts) await account.connectReverse(harness.wsUrl);

    const seventeenth = standIn("10016", TOKEN).connectReverse(harness.wsUrl);
    await expect(seventeenth).rejects.toMatchObject({ status: 503 });
    const refusals = harness.logs.filter(
      (line) => line.msg === "onebot reverse ws rejected: too many connections",
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ selfId: "10016", limit: 16 });

    const [first] = accounts;
    const [older] = first!.sockets();
    await first!.connectReverse(harness.wsUrl);
    expect(await older!.closed).toMatchObject({ reason: "replaced by a newer connection" });
    await helpIsAnswered(first!);
  });
});

describe("start-up beyond loopback", () => {
  it("refuses reverse-ws without accessToken and http without secret, one line per adapter, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-onebot-"));
    try {
      writeFileSync(
        join(dir, "tsumugi.yaml"),
        [
          "server: { host: 0.0.0.0, port: 0, token: console-token }",
          "adapters:",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax, expanding to "".
          "  - { id: qq, mode: reverse-ws, accessToken: '${ONEBOT_TOKEN:-}' }",
          "  - { id: qq2, mode: http, url: 'http://127.0.0.1:3000', accessToken: api-token }",
          "  - { id: qq3, mode: forward-ws, url: 'ws://127.0.0.1:3001' }",
          "  - { id: qq4, mode: reverse-ws, path: /ws4, accessToken: t4 }",
          "  - { id: qq5, mode: http, url: 'http://127.0.0.1:3005', path: /http5, secret: s5 }",
          "",
        ].join("\n"),
      );
      const { code, stderr } = await runCli(dir);

      expect(code).toBe(2);
      const problems = stderr
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("adapters"));
      expect(problems).toEqual([
        "adapters[0].accessToken: required when server.host is not a loopback address (anyone who can reach the port could connect as the QQ account)",
        "adapters[1].secret: required when server.host is not a loopback address (anyone who can reach the port could post events as the QQ account)",
      ]);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ── raw WebSocket client: the test controls every byte it sends ───────────────────────────

interface RawWebSocket {
  socket: Socket;
  /** Resolves with the code of the first close frame the bot sends. */
  closeCode(): Promise<number>;
}

/** Completes a WebSocket handshake by hand and hands back the socket for raw frames. */
function dialRawWebSocket(wsUrl: string, headers: Record<string, string>): Promise<RawWebSocket> {
  const url = new URL(wsUrl);
  const socket = connect(Number(url.port), url.hostname);
  rawSockets.push(socket);
  const request = [
    `GET ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  socket.write(request);
  socket.on("error", () => {});
  let received: Buffer = Buffer.alloc(0);
  let upgraded = false;
  let onClose: ((code: number) => void) | undefined;
  const close = new Promise<number>((resolve) => {
    onClose = resolve;
  });
  return new Promise((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded) {
        const end = received.indexOf("\r\n\r\n");
        if (end === -1) return;
        const status = received.subarray(0, end).toString("latin1").split("\r\n")[0]!;
        if (!status.includes(" 101 ")) return reject(new Error(`handshake refused: ${status}`));
        upgraded = true;
        received = received.subarray(end + 4);
        resolve({ socket, closeCode: () => close });
      }
      received = readServerFrames(received, (opcode, payload) => {
        if (opcode === 0x8) onClose?.(payload.readUInt16BE(0));
      });
    });
  });
}

/** Consumes complete (unmasked) server frames from `buffer`; returns what is left. */
function readServerFrames(buffer: Buffer, onFrame: (opcode: number, payload: Buffer) => void): Buffer {
  let rest = buffer;
  while (rest.length >= 2) {
    const shortLength = rest[1]! & 0x7f;
    const headerLength = shortLength === 126 ? 4 : shortLength === 127 ? 10 : 2;
    if (rest.length < headerLength) break;
    const length =
      shortLength === 126
        ? rest.readUInt16BE(2)
        : shortLength === 127
          ? Number(rest.readBigUInt64BE(2))
          : shortLength;
    if (rest.length < headerLength + length) break;
    onFrame(rest[0]! & 0x0f, rest.subarray(headerLength, headerLength + length));
    rest = rest.subarray(headerLength + length);
  }
  return rest;
}

/**
 * Writes the header of a masked text frame of `size` bytes, then its payload in chunks of one
 * reused zero buffer (a zero mask keeps it as is), until all is sent or `stop` settles.
 */
async function streamFrame(socket: Socket, size: number, stop: Promise<unknown>): Promise<void> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(size), 2);
  socket.write(header);
  const chunk = Buffer.alloc(64 * 1024);
  for (let sent = 0; sent < size && !stopped && !socket.destroyed; sent += chunk.length) {
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), stop, sleep(1_000)]);
    }
  }
}

// ── the command line ─────────────────────────────────────────────────────────────────────

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runCli(cwd: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/main.ts")], {
    cwd,
    env: { ...process.env, TSUMUGI_CONFIG: "", ONEBOT_TOKEN: "" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  // Code that wrongly starts would listen forever.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(deadline);
      resolve({ code, stderr });
    }),
  );
}
