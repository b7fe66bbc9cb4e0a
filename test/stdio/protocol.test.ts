import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { readManifest } from "../../src/plugins/manifest.ts";
import { inboundMessage, parseChannelSession } from "../../src/plugins/stdio/channel-session.ts";
import { encodeLine, LineSplitter, MAX_LINE_BYTES } from "../../src/plugins/stdio/json-lines.ts";
import { answerError, classifyLine, oversizedLineKind } from "../../src/plugins/stdio/protocol.ts";
import { commandLine, retryDelayMs } from "../../src/plugins/stdio/stdio-plugin.ts";

function splitter(maxBytes?: number) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const split = new LineSplitter(
    { line: (text) => lines.push(text), oversized: (bytes) => oversized.push(bytes) },
    maxBytes,
  );
  return { split, lines, oversized };
}

describe("JSON-lines framing", () => {
  it("joins lines split across chunks, in UTF-8, and drops CR and blank lines", () => {
    const { split, lines } = splitter();
    const bytes = Buffer.from('{"result":"紬"}\r\n\n{"a":1}\n{"b"');
    split.push(bytes.subarray(0, 12)); // cuts 紬 in the middle of its bytes
    split.push(bytes.subarray(12));
    split.push(Buffer.from(":2}\n"));
    expect(lines).toEqual(['{"result":"紬"}', '{"a":1}', '{"b":2}']);
  });

  it("drops a line over the limit whole, however it arrives, and goes on with the next", () => {
    const { split, lines, oversized } = splitter(10);
    split.push(Buffer.from("0123456789\n"));
    split.push(Buffer.from("0123456"));
    split.push(Buffer.from("789A"));
    split.push(Buffer.from("BCD\nok\n"));
    expect(lines).toEqual(["0123456789", "ok"]);
    expect(oversized).toEqual([14]);
  });

  it("reports a line over the limit as soon as it passes it, with its first bytes", () => {
    const tooLong: string[] = [];
    const oversized: number[] = [];
    const split = new LineSplitter(
      { line: () => {}, tooLong: (head) => tooLong.push(head), oversized: (bytes) => oversized.push(bytes) },
      10,
    );
    split.push(Buffer.from('{"result":'));
    expect(tooLong).toEqual([]);
    split.push(Buffer.from('"xx'));
    expect(tooLong).toEqual(['{"result":"xx']); // its end has not come yet
    split.push(Buffer.from('xxxxxxxxx"}\n'));
    expect(tooLong).toHaveLength(1);
    expect(oversized).toEqual([24]);
  });

  it("keeps the host's own lines within 1 MB", () => {
    expect(encodeLine({ method: "deactivate" })).toBe('{"method":"deactivate"}\n');
    expect(() =>
      encodeLine({ method: "execute_tool", params: { input: "x".repeat(MAX_LINE_BYTES) } }),
    ).toThrow(/larger than 1048576 bytes/);
  });
});

describe("reading plugin lines", () => {
  it("takes a line too long to read for a push when its first key is method, else for the answer", () => {
    expect(oversizedLineKind('{"method":"web_ui","params":{"widgets":[')).toBe("push");
    expect(oversizedLineKind(' { "method" : "channel_inbound"')).toBe("push");
    expect(oversizedLineKind('{"result":"xxxx')).toBe("answer");
    expect(oversizedLineKind('{"tools":[{"name":"a","method":"x"')).toBe("answer");
    expect(oversizedLineKind("xxxxxxxx")).toBe("answer");
  });

  it("takes a line with method and no result or error as a push, anything else as the answer", () => {
    expect(classifyLine({ method: "channel_inbound", params: { message: "hi" } })).toEqual({
      kind: "push",
      method: "channel_inbound",
      params: { message: "hi" },
    });
    expect(classifyLine({ tools: [] })).toEqual({ kind: "answer", answer: { tools: [] } });
    expect(classifyLine({ method: "activate", result: "ok" })?.kind).toBe("answer");
    expect(classifyLine({ method: "x", error: "bad" })?.kind).toBe("answer");
    expect(classifyLine([1, 2])).toBeUndefined();
    expect(classifyLine("text")).toBeUndefined();
  });

  it("reads an error only when there is one (Go omits empty fields)", () => {
    expect(answerError({ error: "boom" })).toBe("boom");
    expect(answerError({ error: "" })).toBeUndefined();
    expect(answerError({ result: "ok" })).toBeUndefined();
    expect(answerError({ error: { code: 1 } })).toBe('{"code":1}');
  });
});

describe("process supervision rules", () => {
  it("retries activation after 1 s·2^(n-1), capped at 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(retryDelayMs)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it("gives every plugin call 30 s unless the manifest's timeout says otherwise, and retries without limit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-manifest-"));
    try {
      const manifest = {
        id: "py",
        version: "1.0.0",
        runtime: "stdio",
        entry: "python3 plugin.py",
        sdk: "^1.0.0",
      };
      writeFileSync(join(dir, "plugin.json"), JSON.stringify(manifest));
      const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });
      expect(await readManifest(dir, ajv)).toMatchObject({
        ok: true,
        manifest: { timeout: 30_000, autoRetry: true, maxRetries: 0 },
      });
      writeFileSync(join(dir, "plugin.json"), JSON.stringify({ ...manifest, timeout: 600 }));
      expect(await readManifest(dir, ajv)).toMatchObject({ ok: true, manifest: { timeout: 600 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes stdio and python manifests without sdk (as xbot writes them), checks sdk when given, requires it for node", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-manifest-"));
    const read = async (manifest: Record<string, unknown>) => {
      writeFileSync(
        join(dir, "plugin.json"),
        JSON.stringify({ id: "xbot_tool", version: "1.0.0", ...manifest }),
      );
      return readManifest(dir, new Ajv({ useDefaults: true, allErrors: true, strict: false }));
    };
    try {
      expect(await read({ runtime: "stdio", entry: "python3 plugin.py" })).toMatchObject({ ok: true });
      expect(await read({ runtime: "python", entry: "plugin.py" })).toMatchObject({ ok: true });
      expect(await read({ runtime: "stdio", entry: "python3 plugin.py", sdk: "^9.0.0" })).toEqual({
        ok: false,
        id: "xbot_tool",
        problems: [expect.stringContaining('sdk "^9.0.0" does not accept this host\'s SDK version')],
      });
      expect(await read({ runtime: "node", entry: "index.ts" })).toEqual({
        ok: false,
        id: "xbot_tool",
        problems: ['sdk is required for node plugins (a semver range such as "^1.2.0")'],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("splits the entry on whitespace, without a shell", () => {
    expect(commandLine("  python3   -u plugin.py --flag=$HOME ")).toEqual([
      "python3",
      "-u",
      "plugin.py",
      "--flag=$HOME",
    ]);
  });
});

describe("channel sessions", () => {
  it("puts a message without chatId in the plugin's default private chat", () => {
    const message = inboundMessage("web", { message: "hi" }, "7");
    expect(message).toMatchObject({
      sessionId: "stdio:web:default",
      chatType: "private",
      userId: "default",
      senderName: "default",
      adapterId: "stdio",
      selfId: "web",
      messageId: "7",
      segments: [{ type: "text", data: { text: "hi" } }],
    });
    expect(message.groupId).toBeUndefined();
  });

  it("keeps ids opaque strings and makes a group chat's id its group id", () => {
    const message = inboundMessage(
      "web",
      { message: "hi", chatId: 987654321, senderId: 42, senderName: "Ann", chatType: "group" },
      "8",
    );
    expect(message).toMatchObject({ chatType: "group", groupId: "987654321", userId: "42" });
    expect(parseChannelSession("stdio:web:room:with:colons")).toEqual({
      pluginId: "web",
      chatId: "room:with:colons",
    });
    expect(parseChannelSession("onebot:1:group:2")).toBeUndefined();
  });
});
