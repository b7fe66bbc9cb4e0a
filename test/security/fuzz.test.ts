// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config fuzzer writes the config's own ${VAR} syntax.
/**
 * Hostile input for every parser that reads what someone else wrote: CQ strings, OneBot event
 * frames, a stdio plugin's output, the config file and GIFs. Each must answer with a value or
 * its own clear error, never crash or hang. Bounded: the whole file runs in a few seconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { AccountTable } from "../../src/adapters/onebot/account-table.ts";
import { OneBotEventDispatcher } from "../../src/adapters/onebot/event-dispatcher.ts";
import { parseFrame } from "../../src/adapters/onebot/frame.ts";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/log/logger.ts";
import { MAX_GIF_PIXELS, PictureDecoder } from "../../src/media/picture-decoder.ts";
import { decodeCq, MAX_NODE_DEPTH } from "../../src/message/cq-codec.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { MAX_MESSAGE_DEPTH, MAX_MESSAGE_SEGMENTS } from "../../src/message/message-limits.ts";
import type { Segment } from "../../src/message/segment.ts";
import { LineSplitter } from "../../src/plugins/stdio/json-lines.ts";
import { classifyLine } from "../../src/plugins/stdio/protocol.ts";
import { parseJsonLossless } from "../../src/util/json.ts";
import { buildGif, gifFrameBomb } from "../support/pictures.ts";

/** Per test: far above what the runs need (a few seconds for the whole file), so only a hang trips it. */
const TIMEOUT = { timeout: 15_000 };

// ── CQ codec ─────────────────────────────────────────────────────────────────────────────

/** Node levels of decoded segments (content that stayed text counts as none). */
function nodeDepth(segments: Segment[]): number {
  let deepest = 0;
  for (const segment of segments) {
    const content = segment.type === "node" ? segment.data.content : undefined;
    if (Array.isArray(content)) deepest = Math.max(deepest, 1 + nodeDepth(content as Segment[]));
  }
  return deepest;
}

function escapeParam(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("[", "&#91;")
    .replaceAll("]", "&#93;")
    .replaceAll(",", "&#44;");
}

const cqFragment = fc.constantFrom(
  "[CQ:",
  "[CQ:node,content=",
  "&#91;CQ:node&#44;content=",
  "[CQ:image,file=",
  "]",
  "&#93;",
  ",",
  "=",
  "&",
  "&amp;",
  "&#44;",
  "amp;",
  "node",
  "__proto__",
  "紬",
  "\u0000",
  "\ud800",
  " ",
);

describe("CQ codec, hostile strings", TIMEOUT, () => {
  it("decodes long runs of CQ fragments without throwing, into well-formed segments", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(cqFragment, fc.string()), { maxLength: 2_000 }).map((parts) => parts.join("")),
        (text) => {
          for (const segment of decodeCq(text)) {
            expect(typeof segment.type).toBe("string");
            expect(segment.type).not.toBe("");
            expect(typeof segment.data).toBe("object");
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it(`never decodes node content more than ${MAX_NODE_DEPTH} levels deep, however deep it is written`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 80 }), fc.string({ maxLength: 20 }), (depth, inner) => {
        let text = escapeParam(inner);
        for (let level = 0; level < depth; level++) text = `[CQ:node,content=${escapeParam(text)}]`;
        expect(nodeDepth(decodeCq(text))).toBe(Math.min(depth, MAX_NODE_DEPTH));
      }),
      { numRuns: 60 },
    );
  });
});

// ── OneBot event decoding ────────────────────────────────────────────────────────────────

interface LogLine {
  level: number;
  msg: string;
}

const WARN = 40;

/** A dispatcher as the adapter runs it, with what it delivers and logs collected. */
function eventDecoder() {
  const messages: ChatMessage[] = [];
  const logs: LogLine[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) },
  });
  const dispatcher = new OneBotEventDispatcher({
    adapterId: "qq",
    events: { message: (message) => void messages.push(message), connection: () => {} },
    accounts: new AccountTable(),
    logger,
  });
  /** What a socket does with one frame: parse it, dispatch it when it is an event. */
  const receive = (text: string) => {
    const parsed = parseFrame(text);
    if (parsed.ok && "post_type" in parsed.frame) dispatcher.dispatch(parsed.frame, "10000");
    return parsed;
  };
  return { receive, messages, logs };
}

const messageEventBase = {
  post_type: "message",
  message_type: "group",
  message_id: 1,
  group_id: 20000,
  user_id: 30000,
  self_id: 10000,
};

/** `message` values nested `depth` levels, in the shapes implementations nest (node content, forward content, plain arrays). */
function nestedMessage(shape: "node" | "forward" | "array", depth: number): string {
  const [open, close] = {
    node: ['[{"type":"node","data":{"content":', "}}]"],
    forward: ['[{"type":"forward","data":{"id":"1","content":[{"message":', "}]}}]"],
    array: ["[", "]"],
  }[shape];
  return `${open!.repeat(depth)}[{"type":"text","data":{"text":"bottom"}}]${close!.repeat(depth)}`;
}

describe("OneBot event decoding, hostile frames", TIMEOUT, () => {
  it("reads any text or JSON value as a frame or a clear problem, and delivers only serialisable messages", () => {
    const anyEvent = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          post_type: fc.oneof(
            fc.constantFrom("message", "meta_event", "notice", "message_sent"),
            fc.jsonValue(),
          ),
          message_type: fc.oneof(fc.constantFrom("group", "private"), fc.jsonValue()),
          message_id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
          user_id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
          group_id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
          self_id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
          time: fc.jsonValue(),
          sender: fc.jsonValue(),
          status: fc.jsonValue(),
          message: fc.oneof(
            fc.string(),
            fc.jsonValue(),
            fc.array(fc.record({ type: fc.string(), data: fc.jsonValue() })),
          ),
          raw_message: fc.jsonValue(),
        },
        { requiredKeys: ["post_type"] },
      ),
    );
    const frameText = fc.oneof(
      anyEvent.map((value) => JSON.stringify(value)),
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.bigInt().map((n) => `{"post_type":"message","message_id":${n},"user_id":${n},"message":[]}`),
    );
    fc.assert(
      fc.property(frameText, (text) => {
        const { receive, messages, logs } = eventDecoder();
        const parsed = receive(text);
        if (!parsed.ok) expect(parsed.problem).toMatch(/^(invalid JSON|not a JSON object)/);
        for (const message of messages) {
          expect(Array.isArray(message.segments)).toBe(true);
          expect(() => JSON.stringify(message)).not.toThrow();
        }
        expect(logs.filter((line) => line.level >= WARN).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  it(`takes messages nested up to ${MAX_MESSAGE_DEPTH} JSON levels and refuses deeper ones (to 100,000) with one warning`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom("node" as const, "forward" as const, "array" as const),
        fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 100_000 })),
        (shape, depth) => {
          const { receive, messages, logs } = eventDecoder();
          const text = `${JSON.stringify(messageEventBase).slice(0, -1)},"message":${nestedMessage(shape, depth)}}`;
          expect(receive(text).ok).toBe(true);
          const refusals = logs.filter((line) => line.msg === "onebot message event refused");
          expect(messages.length + refusals.length).toBe(1);
          for (const message of messages) expect(() => JSON.stringify(message)).not.toThrow();
          if (refusals.length === 1) expect(refusals[0]).toMatchObject({ level: WARN, messageId: "1" });
        },
      ),
      { numRuns: 40 },
    );
  });

  it(`refuses a message of more than ${MAX_MESSAGE_SEGMENTS} segments, as a list or as a CQ string`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * MAX_MESSAGE_SEGMENTS }), fc.boolean(), (count, asCq) => {
        const { receive, messages, logs } = eventDecoder();
        const message = asCq
          ? JSON.stringify("[CQ:face,id=1]".repeat(count))
          : `[${Array(count).fill('{"type":"face","data":{"id":"1"}}').join(",")}]`;
        receive(`${JSON.stringify(messageEventBase).slice(0, -1)},"message":${message}}`);
        const refused = logs.some((line) => line.msg === "onebot message event refused");
        expect(refused).toBe(count > MAX_MESSAGE_SEGMENTS);
        expect(messages.length).toBe(refused ? 0 : 1);
      }),
      { numRuns: 20 },
    );
  });
});

// ── stdio line reader ────────────────────────────────────────────────────────────────────

type ReaderReport = { line: string } | { oversized: number };

/** What the reader must report for `bytes` taken whole: the oracle for any chunking. */
function expectedLines(bytes: Buffer, maxBytes: number): ReaderReport[] {
  const pieces: Buffer[] = [];
  for (let start = 0, newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
    pieces.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  return pieces.flatMap((piece): ReaderReport[] => {
    if (piece.length > maxBytes) return [{ oversized: piece.length }];
    const text = piece.toString("utf8");
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    return line.trim() ? [{ line }] : [];
  });
}

/** Bytes heavy in what a broken plugin writes: newlines, CR, JSON, invalid UTF-8, long runs. */
const pluginOutput = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
      fc
        .constantFrom(
          "\n",
          "\r\n",
          "\n\n",
          '{"result":"ok"}\n',
          '{"method":"web_ui","params":{}}\n',
          "[1,2]\n",
          "{",
        )
        .map((text) => Buffer.from(text)),
      fc.constantFrom(Buffer.from([0xe7, 0xb4]), Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0x80])),
      fc.integer({ min: 1, max: 300 }).map((length) => Buffer.alloc(length, 0x78)),
    ),
    { maxLength: 40 },
  )
  .map((parts) => Buffer.concat(parts));

describe("stdio line reader, hostile output", TIMEOUT, () => {
  it("reports the same lines and oversized lines however the bytes are split into chunks", () => {
    const maxBytes = 64;
    fc.assert(
      fc.property(pluginOutput, fc.array(fc.nat(), { maxLength: 12 }), (bytes, cuts) => {
        const seen: ReaderReport[] = [];
        const reader = new LineSplitter(
          { line: (line) => seen.push({ line }), oversized: (size) => seen.push({ oversized: size }) },
          maxBytes,
        );
        const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        let start = 0;
        for (const offset of [...offsets, bytes.length]) {
          reader.push(bytes.subarray(start, offset));
          start = offset;
        }
        expect(seen).toEqual(expectedLines(bytes, maxBytes));
      }),
      { numRuns: 500 },
    );
  });

  it("drops a multi-megabyte line in any chunking without holding it, and reads the next", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_048_577, max: 3_000_000 }),
        fc.integer({ min: 1, max: 400_000 }),
        (size, chunk) => {
          const seen: ReaderReport[] = [];
          const reader = new LineSplitter({
            line: (line) => seen.push({ line }),
            oversized: (bytes) => seen.push({ oversized: bytes }),
          });
          const huge = Buffer.alloc(chunk, 0x61);
          for (let sent = 0; sent < size; sent += chunk)
            reader.push(huge.subarray(0, Math.min(chunk, size - sent)));
          reader.push(Buffer.from('\n{"result":"after"}\n'));
          expect(seen).toEqual([{ oversized: size }, { line: '{"result":"after"}' }]);
        },
      ),
      { numRuns: 8 },
    );
  });

  it("reads every line as a protocol line or a SyntaxError, never another failure", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
          fc.integer({ min: 1, max: 50_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
          fc.integer({ min: 1, max: 50_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
          fc.bigInt().map((n) => `{"result":${n},"method":${n}}`),
        ),
        (text) => {
          let value: unknown;
          try {
            value = parseJsonLossless(text);
          } catch (error) {
            expect(error).toBeInstanceOf(SyntaxError);
            return;
          }
          const line = classifyLine(value);
          if (line?.kind === "push") expect(typeof line.method).toBe("string");
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ── config loader ────────────────────────────────────────────────────────────────────────

const configDir = mkdtempSync(join(tmpdir(), "tsumugi-fuzz-config-"));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** Every problem is one `where: reason` line: a key path (`""` prints as nothing) or the file. */
const PROBLEM_LINE = /^.*: \S/;

function loadText(text: string): void {
  const file = join(configDir, "tsumugi.yaml");
  writeFileSync(file, text);
  try {
    loadConfig({ file, env: { SET: "value", EMPTY: "" }, cwd: configDir });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.problems.length).toBeGreaterThan(0);
    for (const problem of error.problems) {
      expect(problem).toMatch(PROBLEM_LINE);
      expect(problem).not.toContain("\n");
    }
  }
}

const yamlFragment = fc.constantFrom(
  ": ",
  "- ",
  "\n",
  "\n  ",
  "[",
  "]",
  "{",
  "}",
  ",",
  "&a ",
  "*a",
  "!!str ",
  "!!binary ",
  "!!set ",
  "? ",
  "<<: ",
  "|\n",
  "'",
  '"',
  "#",
  "---\n",
  "${SET}",
  "${UNSET:-x}",
  "${",
  "server",
  "port",
  "host",
  "0.0.0.0",
  "adapters",
  "mode",
  "reverse-ws",
  "http",
  "accessToken",
  "llm",
  "providers",
  "__proto__",
  "70000",
  "~",
);

const configKeys = {
  server: fc.record(
    { host: fc.jsonValue(), port: fc.jsonValue(), token: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  adapters: fc.oneof(
    fc.jsonValue(),
    fc.array(
      fc.record(
        {
          mode: fc.oneof(fc.constantFrom("reverse-ws", "forward-ws", "http"), fc.jsonValue()),
          id: fc.jsonValue(),
          path: fc.oneof(fc.constant("/x"), fc.jsonValue()),
          url: fc.oneof(fc.constantFrom("ws://127.0.0.1:1", "http://127.0.0.1:2"), fc.jsonValue()),
          accessToken: fc.jsonValue(),
          secret: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  ),
  llm: fc.jsonValue(),
  chat: fc.jsonValue(),
  plugins: fc.jsonValue(),
  bot: fc.jsonValue(),
};

describe("config loader, hostile files", TIMEOUT, () => {
  it("turns any text into a config or a ConfigError of `where: reason` lines", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .array(fc.oneof(yamlFragment, fc.string({ maxLength: 4 })), { maxLength: 60 })
            .map((parts) => parts.join("")),
          fc.record(configKeys, { requiredKeys: [] }).map((config) => stringify(config)),
          fc
            .integer({ min: 1, max: 20_000 })
            .map((depth) => `chat: ${"[".repeat(depth)}${"]".repeat(depth)}\n`),
          fc
            .integer({ min: 1, max: 3_000 })
            .map((depth) => Array.from({ length: depth }, (_, level) => `${" ".repeat(level)}k:`).join("\n")),
          fc.constantFrom("a: &a [*a]\n", "plugins: {config: &c {x: *c}}\n", "x: *missing\n"),
        ),
        loadText,
      ),
      // Each load compiles the schema (~0.1 s): few runs, most of them hostile.
      { numRuns: 40 },
    );
  });
});

// ── GIF decoder ──────────────────────────────────────────────────────────────────────────

const DECODING = { maxVisionSide: 1568, timeoutMs: 10_000 };

/** Real GIFs to mutate: two frames (transparency, interlacing, 256 colours), and a small frame bomb. */
const GIF_SEEDS = [
  buildGif(
    { width: 9, height: 7 },
    Array.from({ length: 256 }, (_, index): [number, number, number] => [index, 255 - index, 7]),
    [
      {
        left: 2,
        top: 1,
        width: 5,
        height: 4,
        pixels: Array.from({ length: 20 }, (_, i) => i * 13),
        transparentIndex: 0,
      },
      { width: 9, height: 7, pixels: Array.from({ length: 63 }, (_, i) => (i * 7) % 256), interlaced: true },
    ],
  ),
  gifFrameBomb({ width: 1, height: 1 }, { width: 300, height: 200 }),
];

/** One change to a GIF: a byte set, a 16-bit field (sizes and offsets live in the first bytes) set, or a cut. */
type GifMutation =
  | { kind: "byte"; at: number; value: number }
  | { kind: "u16"; at: number; value: number }
  | { kind: "cut"; at: number };

const gifMutation: fc.Arbitrary<GifMutation> = fc.oneof(
  fc.record({ kind: fc.constant("byte" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({
    kind: fc.constant("u16" as const),
    at: fc.nat({ max: 48 }),
    value: fc.integer({ min: 0, max: 65_535 }),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
);

function mutated(seed: Buffer, mutations: GifMutation[]): Buffer {
  let bytes = Buffer.from(seed);
  for (const mutation of mutations) {
    const at = mutation.at % bytes.length;
    if (mutation.kind === "cut") bytes = bytes.subarray(0, Math.max(6, at));
    else if (mutation.kind === "byte") bytes[at] = mutation.value;
    else if (at + 1 < bytes.length) bytes.writeUInt16LE(mutation.value, at);
  }
  return bytes;
}

describe("GIF decoder, hostile bytes", TIMEOUT, () => {
  const decoder = new PictureDecoder({ settings: () => DECODING });

  /** Decodes `bytes` the way a fetched picture is: a bounded picture or a one-line reason, within 2 s. */
  async function decodesWithinBounds(bytes: Buffer): Promise<void> {
    const started = performance.now();
    const result = await decoder.decode(bytes);
    expect(performance.now() - started).toBeLessThan(2_000);
    if (!result.ok) {
      expect(result.reason).toMatch(/^[^\n]+$/);
      return;
    }
    const { width = 0, height = 0 } = await sharp(result.picture.bytes).metadata();
    expect(width * height).toBeLessThanOrEqual(MAX_GIF_PIXELS);
    expect(Math.max(width, height)).toBeLessThanOrEqual(DECODING.maxVisionSide);
  }

  it("turns any mutation of a real GIF into a bounded PNG or a reason, quickly", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...GIF_SEEDS),
        fc.array(gifMutation, { minLength: 1, maxLength: 6 }),
        async (seed, mutations) => decodesWithinBounds(mutated(seed, mutations)),
      ),
      { numRuns: 200 },
    );
  });

  it("turns any bytes after a GIF signature into a reason, quickly", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GIF87a", "GIF89a"),
        fc.uint8Array({ maxLength: 2_000 }),
        async (signature, rest) =>
          decodesWithinBounds(Buffer.concat([Buffer.from(signature, "latin1"), rest])),
      ),
      { numRuns: 200 },
    );
  });
});
