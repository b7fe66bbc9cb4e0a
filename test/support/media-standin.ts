/**
 * A speech and picture service in one HTTP server, each endpoint shaped after its provider's
 * public docs:
 *
 * - `POST /v1/audio/speech` — OpenAI's "Create speech"
 *   (https://platform.openai.com/docs/api-reference/audio/createSpeech; SiliconFlow's
 *   https://docs.siliconflow.cn/cn/api-reference/audio/create-speech is the same shape): JSON
 *   `{ model, input, voice, response_format }`, the audio bytes as the answer.
 * - `POST /tts` — GPT-SoVITS's api_v2.py (its module docstring, `check_params`): JSON with
 *   `text`, `text_lang`, `ref_audio_path`, `prompt_lang` required, the WAV as the answer, a 400
 *   `{ message }` for a missing field.
 * - `POST /v1/images/generations` — OpenAI's "Create image"
 *   (https://platform.openai.com/docs/api-reference/images/create): `{ data: [{ b64_json }] }`
 *   or `{ data: [{ url }] }`, a 400 `{ error: { code: "content_policy_violation" } }` for a
 *   refused prompt; or SiliconFlow's "创建图片生成请求"
 *   (https://docs.siliconflow.cn/cn/api-reference/images/images-generations): `{ images: [{ url }] }`.
 * - `GET /files/<name>` — where the url answers point.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tonePcm } from "./voices.ts";

/** A 1×1 PNG. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** A 24 kHz mono 16-bit WAV of a tone `seconds` long, its sizes as a streaming server writes them when `streamed`. */
export function toneWav(seconds: number, streamed = false): Buffer {
  const pcm = tonePcm(seconds);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(streamed ? 0xffffffff : 36 + pcm.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(24_000, 24);
  header.writeUInt32LE(48_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(streamed ? 0xffffffff : pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

export interface RecordedMediaRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** How the picture endpoint answers. */
export type PictureMode = "b64_json" | "openai-url" | "siliconflow-url" | "refuse" | "down";

export class MediaStandIn {
  readonly requests: RecordedMediaRequest[] = [];
  /** The audio `/v1/audio/speech` and `/tts` answer with. */
  readonly wav = toneWav(1.5);
  /** `down`: the speech endpoints answer 503. */
  speechDown = false;
  pictureMode: PictureMode = "b64_json";

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<MediaStandIn> {
    let instance: MediaStandIn | undefined;
    const server = createServer((request, response) => {
      void instance!.handle(request).then(
        ({ status, type, body }) => {
          response.writeHead(status, { "content-type": type });
          response.end(body);
        },
        (error: unknown) => {
          response.writeHead(500, { "content-type": "text/plain" });
          response.end(String(error));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    instance = new MediaStandIn(server, `http://127.0.0.1:${port}`);
    return instance;
  }

  requestsTo(path: string): RecordedMediaRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    request: IncomingMessage,
  ): Promise<{ status: number; type: string; body: Buffer | string }> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method === "GET" && path === "/files/picture.png") {
      return { status: 200, type: "image/png", body: TINY_PNG };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
    this.requests.push({ path, headers: request.headers, body });
    const json = (status: number, value: unknown) => ({
      status,
      type: "application/json",
      body: JSON.stringify(value),
    });
    if (path === "/v1/audio/speech") {
      if (this.speechDown) return json(503, { error: { message: "speech service unavailable" } });
      // OpenAI streams WAV with 0xFFFFFFFF for the RIFF and data sizes (hex dumps in
      // speaches-ai/speaches#493 and remsky/Kokoro-FastAPI#94); the bot sets them right.
      return { status: 200, type: "audio/wav", body: toneWav(1.5, true) };
    }
    if (path === "/tts") {
      if (this.speechDown) return json(400, { message: "tts failed", Exception: "CUDA out of memory" });
      for (const field of ["text", "text_lang", "ref_audio_path", "prompt_lang"]) {
        if (typeof body[field] !== "string" || body[field] === "") {
          return json(400, { message: `${field} is required` });
        }
      }
      return { status: 200, type: "audio/wav", body: this.wav };
    }
    if (path === "/v1/images/generations") {
      const url = `${this.baseUrl}/files/picture.png`;
      switch (this.pictureMode) {
        case "b64_json":
          return json(200, {
            created: 1_700_000_000,
            data: [
              { b64_json: TINY_PNG.toString("base64"), revised_prompt: `${String(body.prompt)}, detailed` },
            ],
            usage: { input_tokens: 20, output_tokens: 272, total_tokens: 292 },
          });
        case "openai-url":
          return json(200, { created: 1_700_000_000, data: [{ url }] });
        case "siliconflow-url":
          return json(200, { images: [{ url }], timings: { inference: 1.2 }, seed: 42 });
        case "refuse":
          return json(400, {
            error: {
              code: "content_policy_violation",
              message: "Your request was rejected as a result of our safety system.",
              type: "invalid_request_error",
            },
          });
        case "down":
          return json(500, { error: { message: "the image server is down" } });
      }
    }
    return json(404, { error: { message: `no route for ${path}` } });
  }
}
