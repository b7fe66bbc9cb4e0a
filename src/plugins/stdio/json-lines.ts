/** Most bytes one protocol line may have, newline excluded (xbot's limit). */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
/** How much of a line over the limit `tooLong` gets: enough to read its first key. */
export const TOO_LONG_HEAD_BYTES = 256;

export interface LineHandlers {
  line(text: string): void;
  /**
   * A line has just passed the limit, its end not yet seen; `head` is its first bytes. Lets
   * the reader act at once instead of when (or if) the line ends.
   */
  tooLong?(head: string): void;
  /** A line longer than the limit was dropped; `bytes` is its length. */
  oversized(bytes: number): void;
}

/**
 * Splits a byte stream into UTF-8 lines of at most `maxBytes`. A longer line is reported
 * as soon as it passes the limit (`tooLong`), dropped whole and reported again once it ends
 * (`oversized`); its bytes are never buffered, so a plugin cannot make the host hold more
 * than one limit's worth of a line. Blank lines are ignored.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the oversized line being dropped; 0 while not dropping. */
  private dropping = 0;

  constructor(
    private readonly handlers: LineHandlers,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const size = end - start;
      if (this.dropping > 0) {
        this.dropping += size;
      } else if (this.pendingBytes + size > this.maxBytes) {
        this.dropping = this.pendingBytes + size;
        const head = headOf([...this.pending, chunk.subarray(start, end)]);
        this.pending = [];
        this.pendingBytes = 0;
        this.handlers.tooLong?.(head);
      } else if (newline === -1) {
        this.pending.push(chunk.subarray(start, end));
        this.pendingBytes += size;
      } else {
        const text =
          this.pendingBytes === 0
            ? chunk.toString("utf8", start, end)
            : Buffer.concat([...this.pending, chunk.subarray(start, end)]).toString("utf8");
        this.pending = [];
        this.pendingBytes = 0;
        const line = text.endsWith("\r") ? text.slice(0, -1) : text;
        if (line.trim()) this.handlers.line(line);
      }
      if (newline === -1) return;
      if (this.dropping > 0) {
        const bytes = this.dropping;
        this.dropping = 0;
        this.handlers.oversized(bytes);
      }
      start = newline + 1;
    }
  }
}

/** The first `TOO_LONG_HEAD_BYTES` of a line held in parts, copying no more than that. */
function headOf(parts: Buffer[]): string {
  const head: Buffer[] = [];
  let bytes = 0;
  for (const part of parts) {
    if (bytes >= TOO_LONG_HEAD_BYTES) break;
    head.push(part.subarray(0, TOO_LONG_HEAD_BYTES - bytes));
    bytes += head.at(-1)!.length;
  }
  return Buffer.concat(head).toString("utf8");
}

/** One message as a protocol line; throws when it would exceed the line limit. */
export function encodeLine(message: Record<string, unknown>): string {
  const text = JSON.stringify(message);
  // A UTF-16 unit is at most 3 UTF-8 bytes: most lines need no byte count.
  if (text.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(text) > MAX_LINE_BYTES) {
    throw new Error(`the request is larger than ${MAX_LINE_BYTES} bytes, the most one line may carry`);
  }
  return `${text}\n`;
}
