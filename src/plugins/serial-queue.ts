/**
 * Runs operations one at a time in the order queued. A failed operation rejects its own
 * promise and is reported to `onError`; the queue goes on with the next one.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly onError: (error: unknown) => void) {}

  run<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.tail.then(operation);
    this.tail = next.catch(this.onError);
    return next;
  }
}
