export interface TransferProgress {
  receivedBytes: number;
  totalBytes: number;
  /** Bytes already on disk when this download (re)started. */
  resumedFromBytes: number;
  /** Recent speed, averaged over the last few seconds. */
  bytesPerSecond: number;
  /** Seconds left at the recent speed; undefined until there is a speed. */
  etaSeconds: number | undefined;
}

/** Speed over a sliding window, so the ETA follows the connection rather than its start. */
const WINDOW_MS = 5_000;

/** Turns a stream of received byte counts into progress with speed and ETA. */
export class TransferMeter {
  private received: number;
  private readonly samples: Array<{ at: number; bytes: number }> = [];

  constructor(
    private readonly totalBytes: number,
    private readonly resumedFromBytes: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.received = resumedFromBytes;
    this.samples.push({ at: now(), bytes: resumedFromBytes });
  }

  add(bytes: number): void {
    this.received += bytes;
    const at = this.now();
    this.samples.push({ at, bytes: this.received });
    while (this.samples.length > 2 && at - this.samples[0]!.at > WINDOW_MS) this.samples.shift();
  }

  progress(): TransferProgress {
    const first = this.samples[0]!;
    const last = this.samples.at(-1)!;
    const seconds = (last.at - first.at) / 1000;
    const bytesPerSecond = seconds > 0 ? (last.bytes - first.bytes) / seconds : 0;
    const remaining = Math.max(0, this.totalBytes - this.received);
    return {
      receivedBytes: this.received,
      totalBytes: this.totalBytes,
      resumedFromBytes: this.resumedFromBytes,
      bytesPerSecond,
      etaSeconds: bytesPerSecond > 0 ? remaining / bytesPerSecond : undefined,
    };
  }
}
