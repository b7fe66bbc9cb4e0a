import { extname } from "node:path";
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
      const { default: mammoth } = await import("mammoth");
      const { value } = await mammoth.convertToHtml({ buffer: bytes });
      return { blocks: await htmlBlocks(value) };
    }
    case "pdf":
      return pdfBlocks(bytes, limits.maxPdfPages);
  }
}

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
    for (let number = 1; number <= read; number++) {
      const content = await (await pdf.getPage(number)).getTextContent();
      const text = content.items
        .map((item) => ("str" in item ? `${item.str}${item.hasEOL ? "\n" : ""}` : ""))
        .join("");
      blocks.push(...paragraphsOf(text, number));
    }
    return pdf.numPages > maxPages
      ? { blocks, note: `only the first ${maxPages} of ${pdf.numPages} pages are indexed` }
      : { blocks };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
