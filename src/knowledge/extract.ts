import { extname } from "node:path";
import { inflateRawSync } from "node:zlib";
import type { DocumentKind } from "../store/knowledge-types.ts";
import { htmlBlocks, mainTextBlocks, type TextBlock } from "./html-blocks.ts";

/** The document kinds the knowledge base reads, by file extension. */
const KINDS = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".txt": "text",
  ".html": "html",
  ".htm": "html",
  ".pdf": "pdf",
  ".docx": "docx",
} as const satisfies Record<string, DocumentKind>;

/** The kind of a document file, or undefined for a file the knowledge base does not read. */
export function documentKindOf(path: string): DocumentKind | undefined {
  return (KINDS as Record<string, DocumentKind>)[extname(path).toLowerCase()];
}

/** A document's text as blocks, its title when it names one, and what was left out. */
export interface ExtractedDocument {
  title?: string;
  blocks: TextBlock[];
  /** Why part of it was not read (a PDF beyond `maxPdfPages`). */
  note?: string;
}

export interface ExtractLimits {
  maxPdfPages: number;
}

/**
 * The most a DOCX may unpack to (all its parts together): Word's own files of a few hundred
 * pages unpack to a few MB; 0.3 MB unpacking to gigabytes took the bot's heap at every start.
 */
export const MAX_DOCX_UNPACKED_BYTES = 64 * 1024 * 1024;
/** The most text read of one PDF, however few its pages (a page's text may be made huge). */
export const MAX_PDF_TEXT_CHARS = 5_000_000;

/** Reads a document's text by its kind; rejects when the file is not what its name says. */
export async function extractDocument(
  kind: DocumentKind,
  bytes: Buffer,
  limits: ExtractLimits,
): Promise<ExtractedDocument> {
  switch (kind) {
    case "markdown":
      return { blocks: markdownBlocks(bytes.toString("utf8")) };
    case "text":
      return { blocks: paragraphsOf(bytes.toString("utf8")) };
    case "html":
      return await mainTextBlocks(bytes.toString("utf8"));
    case "docx": {
      // Mammoth maps Word's heading styles to <h1>…<h6>, so the structure survives.
      // The extractors load with the first document of their kind, not at start-up.
      checkUnpackedSize(bytes, MAX_DOCX_UNPACKED_BYTES);
      const { default: mammoth } = await import("mammoth");
      const { value } = await mammoth.convertToHtml({ buffer: bytes });
      return { blocks: await htmlBlocks(value) };
    }
    case "pdf":
      return pdfBlocks(bytes, limits.maxPdfPages);
  }
}

/**
 * Refuses a zip (a DOCX) whose parts unpack to more than `limit` bytes. Each part is inflated
 * here with the rest of the budget as its output limit, so sizes its directory understates are
 * caught too, and nothing larger than the limit is ever held.
 */
export function checkUnpackedSize(zip: Buffer, limit: number): void {
  const end = zip.lastIndexOf(END_OF_DIRECTORY);
  if (end < 0 || end + 22 > zip.length) throw new Error("not a zip archive (no central directory)");
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  let unpacked = 0;
  for (let entry = 0; entry < entries; entry++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_ENTRY)
      throw new Error("broken zip directory");
    const method = zip.readUInt16LE(at + 10);
    const packedSize = zip.readUInt32LE(at + 20);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (local + 30 > zip.length) throw new Error("broken zip entry");
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const packed = zip.subarray(start, start + packedSize);
    const budget = limit - unpacked;
    if (method === 0) unpacked += packed.length;
    else if (method === 8) {
      try {
        unpacked += inflateRawSync(packed, { maxOutputLength: budget + 1 }).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ERR_BUFFER_TOO_LARGE") throw error;
        unpacked = limit + 1;
      }
    } else throw new Error(`zip compression method ${method} is not read`);
    if (unpacked > limit) throw new Error(`unpacks to over ${Math.round(limit / 1024 / 1024)} MB, not read`);
  }
}

const END_OF_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const CENTRAL_ENTRY = 0x02014b50;

/** Markdown by its ATX headings (`## …`) and blank-line paragraphs; fenced code stays one block. */
function markdownBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let paragraph: string[] = [];
  let fenced = false;
  const flush = () => {
    const joined = paragraph.join("\n").trim();
    if (joined !== "") blocks.push({ text: joined });
    paragraph = [];
  };
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      paragraph.push(line);
      if (!fenced) flush();
      continue;
    }
    const heading = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      if (heading[2] !== "") blocks.push({ text: heading[2]!, level: heading[1]!.length });
    } else if (!fenced && line.trim() === "") flush();
    else paragraph.push(line);
  }
  flush();
  return blocks;
}

/** Plain text by blank-line paragraphs. */
function paragraphsOf(text: string, page?: number): TextBlock[] {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => (page === undefined ? { text: part } : { text: part, page }));
}

/** A PDF's pages (the first `maxPages`), each page's text by its paragraphs. */
async function pdfBlocks(bytes: Buffer, maxPages: number): Promise<ExtractedDocument> {
  const { getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const read = Math.min(pdf.numPages, maxPages);
    const blocks: TextBlock[] = [];
    let chars = 0;
    for (let number = 1; number <= read; number++) {
      const content = await (await pdf.getPage(number)).getTextContent();
      const text = content.items
        .map((item) => ("str" in item ? `${item.str}${item.hasEOL ? "\n" : ""}` : ""))
        .join("");
      blocks.push(...paragraphsOf(text, number));
      chars += text.length;
      if (chars > MAX_PDF_TEXT_CHARS) {
        return {
          blocks,
          note: `only the first ${number} of ${pdf.numPages} pages are indexed (text over ${MAX_PDF_TEXT_CHARS} characters)`,
        };
      }
    }
    return pdf.numPages > maxPages
      ? { blocks, note: `only the first ${maxPages} of ${pdf.numPages} pages are indexed` }
      : { blocks };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
