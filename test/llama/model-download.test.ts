import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.ts";
import type { CatalogModel } from "../../src/models/catalog.ts";
import { createLocalModelStack, type LocalModelStack } from "../../src/models/local-model-stack.ts";
import type { TransferProgress } from "../../src/models/transfer-meter.ts";
import { tinyGguf } from "../support/tiny-gguf.ts";
import { type TinyModelFolder, tinyModelFolder } from "./llama-fixture.ts";

/** Serves one file with Range support; can cut a response short or corrupt it. */
class FileServer {
  readonly ranges: Array<string | undefined> = [];
  /** Bytes sent before the next response is cut off (once). */
  cutAfter: number | undefined;
  corrupt = false;
  private server!: Server;
  url = "";

  constructor(private readonly body: Buffer) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.ranges.push(request.headers.range);
      const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? "")?.[1] ?? 0);
      const body = Buffer.from(this.body.subarray(start));
      if (this.corrupt) body[body.length - 1]! ^= 0xff;
      response.writeHead(start > 0 ? 206 : 200, {
        "content-length": body.length,
        ...(start > 0
          ? { "content-range": `bytes ${start}-${this.body.length - 1}/${this.body.length}` }
          : {}),
      });
      const cut = this.cutAfter;
      this.cutAfter = undefined;
      if (cut === undefined) return response.end(body);
      response.write(body.subarray(0, cut), () => response.destroy());
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/tiny.gguf`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("downloading a local model", () => {
  const file = tinyGguf({ favour: "rn" });
  let folder: TinyModelFolder;
  let server: FileServer;
  let stack: LocalModelStack;
  let entry: CatalogModel;
  let progress: TransferProgress[];

  beforeEach(async () => {
    folder = tinyModelFolder();
    server = new FileServer(file);
    await server.start();
    entry = {
      name: "tiny",
      title: "Tiny",
      description: "generated for the tests",
      url: server.url,
      file: "tiny.gguf",
      sizeBytes: file.length,
      sha256: createHash("sha256").update(file).digest("hex"),
    };
    stack = createLocalModelStack(folder.dataDir, createLogger({ level: "silent" }), [entry]);
    progress = [];
    stack.service.subscribe((event) => {
      if (event.type === "download" && event.download.progress) progress.push(event.download.progress);
    });
  });

  afterEach(async () => {
    await stack.models.close();
    await server.close();
    folder.remove();
  });

  const modelPath = () => join(folder.dataDir, "models", "tiny.gguf");

  it("resumes an interrupted download with a Range request and checks the checksum", async () => {
    server.cutAfter = 200_000;
    await expect(stack.service.pull("tiny")).rejects.toThrow(
      /^the download of http:\S+ stopped at 200000 of \d+ bytes \(.+\): try again to resume it$/,
    );
    expect(existsSync(modelPath())).toBe(false);
    expect(statSync(`${modelPath()}.part`).size).toBe(200_000);
    expect(stack.service.snapshot().downloads).toEqual([
      expect.objectContaining({ name: "tiny", state: "failed" }),
    ]);

    progress = [];
    const installed = await stack.service.pull("tiny");
    expect(server.ranges).toEqual([undefined, "bytes=200000-"]);
    expect(installed).toMatchObject({ name: "tiny", path: modelPath(), sizeBytes: file.length });
    expect(readFileSync(modelPath()).equals(file)).toBe(true);
    expect(existsSync(`${modelPath()}.part`)).toBe(false);

    const last = progress.at(-1)!;
    expect(last).toMatchObject({
      receivedBytes: file.length,
      totalBytes: file.length,
      resumedFromBytes: 200_000,
    });
    expect(last.bytesPerSecond).toBeGreaterThan(0);
    expect(last.etaSeconds).toBe(0);
    expect(stack.service.snapshot().downloads).toEqual([
      expect.objectContaining({ name: "tiny", state: "done" }),
    ]);
    expect(stack.service.snapshot().installed.map((model) => model.name)).toEqual(["tiny"]);

    // The downloaded model is usable by name.
    const answer = await stack.models
      .languageModel(
        {
          id: "local",
          type: "llama-cpp",
          model: "tiny",
          threads: 1,
          contextSize: 4096,
          gpu: false,
          timeoutMs: 10_000,
        },
        "tiny",
      )
      .doGenerate({
        prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        maxOutputTokens: 100,
      });
    expect(answer.usage.outputTokens).toBe(100);
  });

  it("refuses a download whose checksum does not match and keeps nothing of it", async () => {
    server.corrupt = true;
    await expect(stack.service.pull("tiny")).rejects.toThrow(
      /is corrupt .*SHA-256.*it was deleted, try again/,
    );
    expect(existsSync(modelPath())).toBe(false);
    expect(existsSync(`${modelPath()}.part`)).toBe(false);
    expect(stack.service.snapshot().downloads[0]).toMatchObject({
      state: "failed",
      error: expect.stringContaining("corrupt"),
    });
  });

  it("does not download again what is there, and removes it on request", async () => {
    await stack.service.pull("tiny");
    await stack.service.pull("tiny");
    expect(server.ranges).toHaveLength(1);
    expect(stack.service.remove("tiny")).toBe(true);
    expect(existsSync(modelPath())).toBe(false);
    expect(stack.service.snapshot().installed).toEqual([]);
    expect(stack.service.remove("tiny")).toBe(false);
  });
});
