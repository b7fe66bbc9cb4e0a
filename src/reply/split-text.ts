const SENTENCE_END = /[。！？!?.…~～\n]/u;

/**
 * Splits a reply into messages of at most `limit` characters, cutting after the last sentence
 * end that fits (or a space, or hard at the limit when a sentence is longer than a message).
 */
export function splitText(text: string, limit: number): string[] {
  const splitter = new StreamSplitter(limit);
  return [...splitter.push(text), ...splitter.end()];
}

/**
 * Splits a text that arrives in pieces (a streamed reply) into exactly the messages
 * `splitText` makes of the whole, handing each one out as soon as no later text can change it:
 * once more than `limit` characters other than trailing white space wait, the first message's
 * window is final.
 */
export class StreamSplitter {
  private rest = "";

  constructor(private readonly limit: number) {}

  /** Adds text; returns the messages it completed. */
  push(text: string): string[] {
    this.rest = (this.rest + text).trimStart();
    const chunks: string[] = [];
    while (this.rest.trimEnd().length > this.limit) {
      const window = this.rest.slice(0, this.limit);
      let cut = lastIndexMatching(window, SENTENCE_END) + 1;
      if (cut <= 0) cut = window.lastIndexOf(" ") + 1;
      if (cut <= 0) cut = this.limit;
      const chunk = this.rest.slice(0, cut).trim();
      if (chunk) chunks.push(chunk);
      this.rest = this.rest.slice(cut).trimStart();
    }
    return chunks;
  }

  /** The text has ended: the last message, if any text is left. */
  end(): string[] {
    const last = this.rest.trim();
    this.rest = "";
    return last ? [last] : [];
  }
}

function lastIndexMatching(text: string, pattern: RegExp): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (pattern.test(text[i]!)) return i;
  }
  return -1;
}
