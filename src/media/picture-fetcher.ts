import { constants, open } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { Type } from "@sinclair/typebox";
import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import { ajvOnFirstUse, checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import { errorMessage } from "../util/values.ts";
import type { MediaSettings } from "./config.ts";
import type { PictureDecoder } from "./picture-decoder.ts";
import type { PictureFetch, PictureFetcher, PictureRef } from "./types.ts";
import {
  type HostResolver,
  systemResolver,
  tooLargeReason,
  type VettedGet,
  vettedGet,
} from "./vetted-get.ts";

/** The keys of `media` that fetching reads. */
export type PictureFetchSettings = Pick<
  MediaSettings,
  "allowPrivateNetworks" | "allowLocalFiles" | "maxBytes" | "timeoutMs"
>;

/** Asks the OneBot implementation where a file id's picture is; answers `get_image`'s `data`. */
export type GetImage = (fileId: string, timeoutMs: number) => Promise<unknown>;

export interface PictureFetcherDeps {
  settings: () => PictureFetchSettings;
  /** OneBot `get_image` of the chat's account ({@link oneBotGetImage}); without it a bare file id is not fetched. */
  getImage?: GetImage;
  /** Shared by every account's fetcher: what it decoded (or refused) once is not decoded again. */
  decoder: PictureDecoder;
  logger: Logger;
  /** How host names become addresses; the system's (dns.lookup) unless a test names hosts of its own. */
  resolveHost?: HostResolver;
}

/** Fetches pictures of one account's chats with every limit of `media` (see docs/security.md). */
export function createPictureFetcher(deps: PictureFetcherDeps): PictureFetcher {
  return {
    fetch: (ref, signal) => fetchPicture(ref, signal, deps),
    decode: async (bytes) => logged(await deps.decoder.decode(bytes), {}, deps.logger),
  };
}

/** `get_image` as a OneBot action of one account, for {@link PictureFetcherDeps.getImage}. */
export function oneBotGetImage(adapter: ChatAdapter, selfId: string): GetImage {
  return (fileId, timeoutMs) => adapter.callAction(selfId, "get_image", { file: fileId }, { timeoutMs });
}

async function fetchPicture(
  ref: PictureRef,
  callerSignal: AbortSignal | undefined,
  deps: PictureFetcherDeps,
): Promise<PictureFetch> {
  const settings = deps.settings();
  const startedAt = Date.now();
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  let result: PictureFetch;
  try {
    // Decoding runs within the same deadline (and stops by itself at media.timeoutMs).
    const fetched = await untilAborted(fetchBytes(ref, settings, signal, deps), signal);
    result = fetched.ok ? await untilAborted(deps.decoder.decode(fetched.body), signal) : fetched;
  } catch (error) {
    result = {
      ok: false,
      reason: thrownReason(error, callerSignal, Date.now() - startedAt, settings.timeoutMs),
    };
  }
  // Only the host: QQ's picture URLs carry access keys.
  return logged(result, { host: hostOf(ref.url), fileId: ref.fileId }, deps.logger);
}

/** `result`, its failure logged once with where the picture came from and why. */
function logged(result: PictureFetch, source: Record<string, unknown>, logger: Logger): PictureFetch {
  if (!result.ok) logger.warn({ ...source, reason: result.reason }, "picture not fetched");
  return result;
}

/** The picture's bytes from the segment's http(s) URL, or through `get_image` when it has none. */
async function fetchBytes(
  ref: PictureRef,
  settings: PictureFetchSettings,
  signal: AbortSignal,
  deps: PictureFetcherDeps,
): Promise<VettedGet> {
  const get = (url: string) =>
    vettedGet(url, {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      maxBytes: settings.maxBytes,
      resolve: deps.resolveHost ?? systemResolver,
      signal,
    });
  if (ref.url !== undefined && (isHttpUrl(ref.url) || ref.fileId === undefined)) return get(ref.url);
  if (ref.fileId === undefined) return { ok: false, reason: "nothing to fetch (no url, no file id)" };
  if (!deps.getImage) return { ok: false, reason: "no url, and get_image is not available" };

  // The whole fetch's deadline still applies: untilAborted gives up on a slow answer.
  const answer = await deps.getImage(ref.fileId, settings.timeoutMs);
  if (!isImageAnswer(answer)) return { ok: false, reason: "get_image answered without a file or url" };
  const localPath = answer.file === undefined ? undefined : localPathOf(answer.file);
  if (localPath !== undefined && settings.allowLocalFiles) return readLocalFile(localPath, settings.maxBytes);
  if (answer.url !== undefined && answer.url !== "") return get(answer.url);
  const why = localPath === undefined ? "" : " (only a local file, and media.allowLocalFiles is off)";
  return { ok: false, reason: `get_image gave no url${why}` };
}

/** NapCat, LLOneBot and Lagrange answer `{file, url, file_size, file_name}`; `file` may be a local path. */
const isImageAnswer = checkOnFirstUse<{ file?: string; url?: string }>(
  ajvOnFirstUse({ strict: false }),
  Type.Object({ file: Type.Optional(Type.String()), url: Type.Optional(Type.String()) }),
);

function localPathOf(file: string): string | undefined {
  if (file.startsWith("file://")) return fileURLToPath(file);
  return isAbsolute(file) ? file : undefined;
}

/** A local file `get_image` named (media.allowLocalFiles): regular files only, within the size cap. */
async function readLocalFile(path: string, maxBytes: number): Promise<VettedGet> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a regular file.
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: `refused: ${path} is not a regular file` };
    if (stats.size > maxBytes) return { ok: false, reason: tooLargeReason(maxBytes, stats.size) };
    const body = Buffer.alloc(stats.size);
    const { bytesRead } = await handle.read(body, 0, stats.size, 0);
    return { ok: true, body: body.subarray(0, bytesRead) };
  } finally {
    await handle.close();
  }
}

/** Why the fetch threw: the caller gave up, the time ran out, or what went wrong (one line). */
function thrownReason(
  error: unknown,
  callerSignal: AbortSignal | undefined,
  elapsedMs: number,
  timeoutMs: number,
): string {
  if (callerSignal?.aborted) return "aborted";
  // get_image's own timer may fire a moment before the deadline's: both are this timeout.
  if (elapsedMs >= timeoutMs) return `timed out after ${timeoutMs} ms`;
  return errorMessage(error).split("\n")[0]!;
}

/** `work`, or a rejection as soon as `signal` aborts (a DNS lookup or OneBot action cannot be cancelled). */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
