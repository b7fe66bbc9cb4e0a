// A worker thread's module (see util/off-thread.ts and readers.ts): reads one web page or one
// document, which may be anything a stranger wrote.
import { serveOffThread } from "../util/off-thread.ts";
import { type ExtractedDocument, extractDocument } from "./extract.ts";
import { mainTextBlocks } from "./html-blocks.ts";
import type { ReadJob } from "./readers.ts";

serveOffThread<ReadJob, ExtractedDocument>((job) => {
  if (job.what === "page") return mainTextBlocks(job.html);
  // A Buffer reaches a worker as a plain Uint8Array.
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  return extractDocument(job.kind, bytes, job.limits);
});
