import { createHash, type Hash } from "node:crypto";
import { once } from "node:events";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import { partialPath } from "./model-files.ts";
import { TransferMeter, type TransferProgress } from "./transfer-meter.ts";

export interface DownloadRequest {
  url: string;
  /** Final path; the download grows in `<path>.part` until its checksum matched. */
  path: string;
  sizeBytes: number;
  sha256: string;
  onProgress?: (progress: TransferProgress) => void;
  signal?: AbortSignal;
}

/** Progress callbacks at most this often (and once at the end). */
const PROGRESS_INTERVAL_MS = 200;

/**
 * Downloads a file, resuming a partial download with an HTTP Range request (a server that
 * ignores the range restarts it from zero). The file only takes its final name once its size
 * and SHA-256 match; a mismatch deletes the partial file, so the next try starts clean.
 */
export async function downloadFile(request: DownloadRequest): Promise<void> {
  const part = partialPath(request.path);
  mkdirSync(dirname(request.path), { recursive: true });
  let offset = existsSync(part) ? statSync(part).size : 0;
  if (offset > request.sizeBytes) {
    rmSync(part);
    offset = 0;
  }
  let hash = createHash("sha256");
  if (offset > 0) await hashFile(part, hash);

  if (offset < request.sizeBytes) {
    const response = await fetch(request.url, {
      headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      signal: request.signal,
    }).catch((error: unknown) => {
      throw new Error(`could not download ${request.url}: ${networkProblem(error)}`);
    });
    if (!response.ok || !response.body) {
      throw new Error(
        `downloading ${request.url} failed: HTTP ${response.status} ${response.statusText}`.trim(),
      );
    }
    if (offset > 0 && response.status !== 206) {
      // The server ignored the range and sends the whole file: start over.
      offset = 0;
      hash = createHash("sha256");
    } else if (offset > 0 && !response.headers.get("content-range")?.startsWith(`bytes ${offset}-`)) {
      throw new Error(`downloading ${request.url} failed: the server resumed at the wrong place`);
    }
    await receive(response.body, part, offset, hash, request).catch((error: unknown) => {
      const kept = existsSync(part) ? statSync(part).size : 0;
      throw new Error(
        `the download of ${request.url} stopped at ${kept} of ${request.sizeBytes} bytes ` +
          `(${networkProblem(error)}): try again to resume it`,
      );
    });
  }
  finish(part, request, hash);
}

async function receive(
  body: ReadableStream<Uint8Array>,
  part: string,
  offset: number,
  hash: Hash,
  request: DownloadRequest,
): Promise<void> {
  const meter = new TransferMeter(request.sizeBytes, offset);
  const file = createWriteStream(part, { flags: offset > 0 ? "a" : "w" });
  let reported = 0;
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      meter.add(chunk.byteLength);
      if (!file.write(chunk)) await once(file, "drain");
      if (performance.now() - reported >= PROGRESS_INTERVAL_MS) {
        reported = performance.now();
        request.onProgress?.(meter.progress());
      }
    }
  } finally {
    file.end();
    await once(file, "close");
  }
  request.onProgress?.(meter.progress());
}

function finish(part: string, request: DownloadRequest, hash: Hash): void {
  const size = statSync(part).size;
  const sha256 = hash.digest("hex");
  if (size !== request.sizeBytes || sha256 !== request.sha256.toLowerCase()) {
    rmSync(part, { force: true });
    throw new Error(
      `the download of ${request.url} is corrupt (${size} bytes, SHA-256 ${sha256}; expected ` +
        `${request.sizeBytes} bytes, SHA-256 ${request.sha256}): it was deleted, try again`,
    );
  }
  renameSync(part, request.path);
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

/** Node's fetch says "fetch failed"; the reason (DNS, refused, reset) is in its cause. */
function networkProblem(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
