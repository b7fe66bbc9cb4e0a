const SENTENCE_END = /[。！？!?.…~～\n]/u;

/**
 * Splits a reply into messages of at most `limit` characters, cutting after the last sentence
 * end that fits (or a space, or hard at the limit when a sentence is longer than a message).
 */
export function splitText(text: string, limit: number): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    let cut = lastIndexMatching(window, SENTENCE_END) + 1;
    if (cut <= 0) cut = window.lastIndexOf(" ") + 1;
    if (cut <= 0) cut = limit;
    chunks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) chunks.push(rest);
  return chunks.filter((chunk) => chunk.length > 0);
}

function lastIndexMatching(text: string, pattern: RegExp): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (pattern.test(text[i]!)) return i;
  }
  return -1;
}
