import type { KnowledgeChunk } from "../store/knowledge-types.ts";
import type { TextBlock } from "./html-blocks.ts";

/**
 * Cuts a document's blocks into passages by its structure: a heading starts a new passage,
 * paragraphs under one heading are joined while they fit in `maxChars`, and a paragraph longer
 * than that is cut at sentence ends (or anywhere, for one long sentence).
 */
export function chunkBlocks(blocks: readonly TextBlock[], maxChars: number): KnowledgeChunk[] {
  const chunks: KnowledgeChunk[] = [];
  const headings: string[] = [];
  let parts: string[] = [];
  let page: number | undefined;
  const flush = () => {
    if (parts.length === 0) return;
    chunks.push({
      position: chunks.length,
      heading: headings.filter((heading) => heading !== undefined).join(" › "),
      ...(page === undefined ? {} : { page }),
      text: parts.join("\n"),
    });
    parts = [];
    page = undefined;
  };
  for (const block of blocks) {
    if (block.level !== undefined) {
      flush();
      headings.length = block.level - 1;
      headings[block.level - 1] = block.text;
      continue;
    }
    for (const piece of piecesOf(block.text, maxChars)) {
      const length = parts.reduce((sum, part) => sum + part.length + 1, 0);
      if (parts.length > 0 && (length + piece.length > maxChars || block.page !== page)) flush();
      if (parts.length === 0) page = block.page;
      parts.push(piece);
    }
  }
  flush();
  return chunks;
}

const SENTENCE_ENDS = /(?<=[。！？!?.；;])\s*/u;

/** A paragraph as pieces of at most `maxChars`, cut after sentence ends where it can be. */
function piecesOf(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let current = "";
  for (const sentence of text.split(SENTENCE_ENDS)) {
    for (let start = 0; start < sentence.length; start += maxChars) {
      const part = sentence.slice(start, start + maxChars);
      if (current.length + part.length > maxChars && current !== "") {
        pieces.push(current);
        current = "";
      }
      current += part;
    }
  }
  if (current !== "") pieces.push(current);
  return pieces;
}
