/** An item that failed is not tried again for this long (its url expired, the model refuses it). */
const FAILURE_PAUSE_MS = 10 * 60_000;
const MAX_REMEMBERED_FAILURES = 1_000;

/**
 * What a media model task (describing pictures, transcribing voice) may still try: attempts
 * per local calendar day, counted in memory before each fetch whatever its outcome, and items
 * that failed recently, paused so a broken one is not tried again turn after turn.
 */
export class AttemptBudget<Shown> {
  private day = { key: "", attempts: 0 };
  /** Item key → when it may be tried again, and what it shows until then. */
  private readonly failures = new Map<string, { until: number; shown?: Shown }>();

  /** `today` names the current day; the process's local date unless a test sets it. */
  constructor(
    private readonly maxPerDay: () => number,
    private readonly today: () => string = () => new Date().toDateString(),
  ) {}

  /** Whether today's attempts are used up: then nothing new is even fetched. */
  dailyCapReached(): boolean {
    const today = this.today();
    if (this.day.key !== today) this.day = { key: today, attempts: 0 };
    return this.day.attempts >= this.maxPerDay();
  }

  /** Takes one attempt from today's budget; false once it is spent. */
  takeDailyAttempt(): boolean {
    if (this.dailyCapReached()) return false;
    this.day.attempts++;
    return true;
  }

  /** An item that failed recently is not tried again: it shows `shown` if it has one, else its placeholder. */
  recentFailure(key: string): { shown?: Shown } | undefined {
    const failure = this.failures.get(key);
    if (failure === undefined) return undefined;
    if (failure.until > Date.now()) return failure;
    this.failures.delete(key);
    return undefined;
  }

  pause(key: string, shown?: Shown): void {
    if (this.failures.size >= MAX_REMEMBERED_FAILURES) this.failures.clear();
    this.failures.set(key, { until: Date.now() + FAILURE_PAUSE_MS, ...(shown ? { shown } : {}) });
  }
}
