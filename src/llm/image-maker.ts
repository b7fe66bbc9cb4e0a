import type { Logger } from "../log/logger.ts";
import type { LlmProviderConfig } from "./config.ts";
import { describeRef } from "./model-ref.ts";
import { redact } from "./redact.ts";
import type { LlmUsageRecord } from "./types.ts";

/** The image-generation task of `llm.models`. */
export const IMAGE_TASK = "image";

const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Error codes OpenAI answers a prompt its safety system rejects with (DALL·E, gpt-image-1). */
const REFUSAL_CODES = new Set(["content_policy_violation", "moderation_blocked", "content_filter"]);
/** How other servers word the same (SiliconFlow, gateways in front of Chinese models). */
const REFUSAL_WORDS =
  /safety system|content policy|moderation|inappropriate|sensitive|违规|敏感|不当|安全审核/i;

export interface MakeImageRequest {
  prompt: string;
  /** "WIDTHxHEIGHT". */
  size: string;
  signal?: AbortSignal;
  replyId?: string;
  sessionId?: string;
  userKey?: string;
  /** Tokens the picture counts for in the usage record when the provider reports no usage. */
  tokensPerPicture: number;
}

/** The picture a model made: its bytes (b64_json) or a url to fetch, and who made it. */
export type MadeImage = ({ bytes: Buffer; url?: undefined } | { url: string; bytes?: undefined }) & {
  ref: string;
  provider: string;
  latencyMs: number;
  revisedPrompt?: string;
};

/** What came of a request: a picture, the provider's refusal (said plainly), or every model failed. */
export type ImageOutcome =
  | { ok: true; image: MadeImage }
  | { ok: false; refused: string; ref: string }
  | { ok: false; failed: string };

export interface ImageMakerOptions {
  providers: LlmProviderConfig[];
  models: Record<string, string[]>;
  modelsInChat?: (sessionId: string) => Record<string, string[]>;
  usage: (record: LlmUsageRecord) => void;
  logger: Logger;
  fetch: typeof globalThis.fetch;
}

/** A refusal from a provider's safety system: the next model is not asked to draw it instead. */
class Refusal extends Error {}

/**
 * Pictures for `llm.models.image`: each model once, in order, on the providers'
 * OpenAI-compatible `POST …/images/generations` (OpenAI's `data[].b64_json | url`, SiliconFlow's
 * `images[].url`). Every attempt is a usage record of the task `image`, with the tokens the
 * provider reports (gpt-image-1) or `tokensPerPicture`, so the daily budgets count pictures. A
 * prompt a provider refuses is not sent to the next model.
 */
export class ImageMaker {
  constructor(private readonly options: ImageMakerOptions) {}

  configured(sessionId?: string): boolean {
    return this.refs(sessionId).length > 0;
  }

  async make(request: MakeImageRequest): Promise<ImageOutcome> {
    const failures: string[] = [];
    for (const ref of this.refs(request.sessionId)) {
      const started = performance.now();
      const { provider, model } = describeRef(ref);
      const config = this.options.providers.find((candidate) => candidate.id === provider);
      const record = {
        time: Date.now(),
        task: IMAGE_TASK,
        provider,
        model,
        replyId: request.replyId,
        sessionId: request.sessionId,
        userKey: request.userKey,
      };
      try {
        if (!config) throw new Error(`unknown LLM provider "${provider}" in "${ref}"`);
        const { picture, usage, revisedPrompt } = await this.post(config, model, request);
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({
          ...record,
          promptTokens: usage?.input ?? 0,
          completionTokens: usage?.output ?? request.tokensPerPicture,
          latencyMs,
          success: true,
        });
        const made = { ref, provider, latencyMs, ...(revisedPrompt ? { revisedPrompt } : {}) };
        return { ok: true, image: { ...picture, ...made } };
      } catch (error) {
        const raw = error instanceof Error ? error.message : String(error);
        const message = config ? redact(raw, config) : raw;
        const latencyMs = Math.round(performance.now() - started);
        this.options.usage({
          ...record,
          promptTokens: 0,
          completionTokens: 0,
          latencyMs,
          success: false,
          error: message,
        });
        this.options.logger.warn(
          { task: IMAGE_TASK, provider, model },
          `image generation failed: ${message}`,
        );
        if (error instanceof Refusal) return { ok: false, refused: message, ref };
        failures.push(`${ref}: ${message}`);
        if (request.signal?.aborted) break;
      }
    }
    return { ok: false, failed: failures.join("; ") || "no image model is set (llm.models.image)" };
  }

  private refs(sessionId: string | undefined): string[] {
    const { models, modelsInChat } = this.options;
    const inForce = sessionId !== undefined && modelsInChat ? modelsInChat(sessionId) : models;
    return inForce[IMAGE_TASK] ?? [];
  }

  private async post(
    config: LlmProviderConfig,
    model: string,
    request: MakeImageRequest,
  ): Promise<{
    picture: { bytes: Buffer } | { url: string };
    usage?: { input: number; output: number };
    revisedPrompt?: string;
  }> {
    if (config.type !== "openai-compatible" && config.type !== "openai") {
      throw new Error(`provider ${config.id} (${config.type}) serves no /images/generations`);
    }
    const base = (config.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "");
    // https://platform.openai.com/docs/api-reference/images/create — only fields every model
    // accepts: gpt-image-1 refuses `response_format`, DALL·E answers a url without it.
    const response = await this.options.fetch(`${base}/images/generations`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...config.headers,
        ...(config.apiKey === "" ? {} : { Authorization: `Bearer ${config.apiKey}` }),
      },
      body: JSON.stringify({ model, prompt: request.prompt, n: 1, size: request.size }),
      signal: AbortSignal.any([
        ...(request.signal ? [request.signal] : []),
        AbortSignal.timeout(config.timeoutMs),
      ]),
    });
    const text = await response.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
      throw new Error("the answer is not JSON");
    }
    if (!response.ok) {
      const refusal = refusalOf(answer);
      if (refusal !== undefined) throw new Refusal(refusal);
      throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
    }
    return pictureOf(answer);
  }
}

/** The provider's own words when an error answer is a safety refusal; undefined for other errors. */
function refusalOf(answer: unknown): string | undefined {
  const body = answer as { error?: { code?: unknown; message?: unknown }; message?: unknown } | null;
  const code = typeof body?.error?.code === "string" ? body.error.code : undefined;
  const message =
    typeof body?.error?.message === "string"
      ? body.error.message
      : typeof body?.message === "string"
        ? body.message
        : undefined;
  if (code !== undefined && REFUSAL_CODES.has(code)) return message ?? code;
  return message !== undefined && REFUSAL_WORDS.test(message) ? message : undefined;
}

/** The first picture of a success answer, in OpenAI's shape or SiliconFlow's. */
function pictureOf(answer: unknown): {
  picture: { bytes: Buffer } | { url: string };
  usage?: { input: number; output: number };
  revisedPrompt?: string;
} {
  const body = answer as {
    data?: Array<{ b64_json?: unknown; url?: unknown; revised_prompt?: unknown }>;
    images?: Array<{ url?: unknown }>;
    usage?: { input_tokens?: unknown; output_tokens?: unknown };
  } | null;
  const first = body?.data?.[0] ?? body?.images?.[0];
  const usage =
    typeof body?.usage?.input_tokens === "number" && typeof body.usage.output_tokens === "number"
      ? { input: body.usage.input_tokens, output: body.usage.output_tokens }
      : undefined;
  const revised =
    first && "revised_prompt" in first && typeof first.revised_prompt === "string"
      ? { revisedPrompt: first.revised_prompt }
      : {};
  if (first && "b64_json" in first && typeof first.b64_json === "string" && first.b64_json !== "") {
    return { picture: { bytes: Buffer.from(first.b64_json, "base64") }, ...(usage && { usage }), ...revised };
  }
  if (first && typeof first.url === "string" && /^https?:\/\//i.test(first.url)) {
    return { picture: { url: first.url }, ...(usage && { usage }), ...revised };
  }
  throw new Error("the answer has no picture (data[].b64_json, data[].url or images[].url)");
}
