import type { DocumentKind } from "../store/knowledge-types.ts";
import {
  type OffThreadLimits,
  type OffThreadOutcome,
  offThreadEntry,
  runOffThread,
} from "../util/off-thread.ts";
import type { ExtractedDocument, ExtractLimits } from "./extract.ts";

/** What the reading worker (extract-worker.ts) is given. */
export type ReadJob =
  | { what: "page"; html: string }
  | { what: "document"; kind: DocumentKind; bytes: Uint8Array; limits: ExtractLimits };

/** A web page (`fetch_page`): a page is a few MB at most, read in well under a second. */
const PAGE_LIMITS: OffThreadLimits = { timeoutMs: 10_000, maxHeapMb: 256 };
/** A document of the knowledge folders (up to `knowledge.maxFileBytes`, a PDF of hundreds of pages). */
const DOCUMENT_HEAP_MB = 512;

const READER = offThreadEntry(import.meta.url, "extract-worker");

/**
 * A web page's main text and title, read in a worker thread with a memory and a time limit
 * (readability on a page crafted to be slow held the event loop for 22 s).
 */
export function readWebPage(
  html: string,
  signal?: AbortSignal,
): Promise<OffThreadOutcome<ExtractedDocument>> {
  return runOffThread<ReadJob, ExtractedDocument>(READER, { what: "page", html }, PAGE_LIMITS, signal);
}

/** A document's text (extract.ts), read in a worker thread with a memory and a time limit. */
export function readDocument(
  kind: DocumentKind,
  bytes: Buffer,
  limits: ExtractLimits & { readTimeoutMs: number },
): Promise<OffThreadOutcome<ExtractedDocument>> {
  return runOffThread<ReadJob, ExtractedDocument>(
    READER,
    { what: "document", kind, bytes, limits: { maxPdfPages: limits.maxPdfPages } },
    { timeoutMs: limits.readTimeoutMs, maxHeapMb: DOCUMENT_HEAP_MB },
  );
}
