/** What a stage decides: the subject goes on to the next stage (maybe changed), or stops here, saying why. */
export type StageStep<T> = { readonly go: T } | { readonly stop: string };

/** One named step of a path (src/app/message-path.ts lists them). */
export interface Stage<T> {
  readonly name: string;
  run(subject: T): StageStep<T> | Promise<StageStep<T>>;
}

/** Where a subject's run ended: past the last stage, or at the stage that stopped it and why. */
export type PathEnd = { readonly passed: true } | { readonly stoppedAt: string; readonly reason: string };

export interface StagePathOptions<T> {
  /**
   * Keeps the subjects of one key (a session) in the order they came: once a stage has to wait
   * for one of them (a store read), the key's later subjects wait at that stage until it has
   * left the path; they pass the stages before it at once.
   */
  orderBy?: (subject: T) => string;
  /** A stage threw or rejected: the subject goes no further; the path goes on with the others. */
  failed: (subject: T, stage: string, error: unknown) => void;
}

const PASSED: PathEnd = { passed: true };

/** A key's subjects still in the path after a stage made them wait: later ones wait from stage `index` until `left` settles. */
interface Hold {
  index: number;
  left: Promise<unknown>;
}

/**
 * Runs subjects through an ordered list of named stages. Synchronous while the stages are, so
 * a message needing no store read passes the whole path in the call that brought it.
 */
export class StagePath<T> {
  readonly #holds = new Map<string, Hold>();

  constructor(
    readonly stages: readonly Stage<T>[],
    private readonly options: StagePathOptions<T>,
  ) {}

  get names(): string[] {
    return this.stages.map((stage) => stage.name);
  }

  /** The path's entrance at stage `name`: subjects entering there skip the stages before it. */
  from(name: string): (subject: T) => PathEnd | Promise<PathEnd> {
    const index = this.stages.findIndex((stage) => stage.name === name);
    if (index < 0) throw new Error(`no stage "${name}" in ${this.names.join(" → ")}`);
    return (subject) => this.run(subject, index);
  }

  run(subject: T, from = 0): PathEnd | Promise<PathEnd> {
    const key = this.options.orderBy?.(subject);
    const earlier = key === undefined || this.#holds.size === 0 ? undefined : this.#holds.get(key);
    return this.#run(subject, from, key, earlier);
  }

  /** Runs the stages from `from`; `earlier` holds the subjects of the same key that came before. */
  #run(
    subject: T,
    from: number,
    key: string | undefined,
    earlier: Hold | undefined,
  ): PathEnd | Promise<PathEnd> {
    let current = subject;
    for (let index = from; index < this.stages.length; index++) {
      const stage = this.stages[index]!;
      const waits = earlier !== undefined && index >= earlier.index;
      let step: StageStep<T> | Promise<StageStep<T>>;
      try {
        const waiting = current;
        step = waits ? earlier.left.then(() => stage.run(waiting)) : stage.run(current);
      } catch (error) {
        return this.#failed(current, stage.name, error);
      }
      if (step instanceof Promise)
        return this.#awaiting(current, index, step, key, waits ? undefined : earlier);
      if ("stop" in step) return { stoppedAt: stage.name, reason: step.stop };
      current = step.go;
    }
    return PASSED;
  }

  /** The rest of the path once stage `index` answers; the key's later subjects wait for it. */
  #awaiting(
    subject: T,
    index: number,
    step: Promise<StageStep<T>>,
    key: string | undefined,
    earlier: Hold | undefined,
  ): Promise<PathEnd> {
    const name = this.stages[index]!.name;
    const left = step.then(
      (settled) =>
        "stop" in settled
          ? { stoppedAt: name, reason: settled.stop }
          : this.#run(settled.go, index + 1, key, earlier),
      (error: unknown) => this.#failed(subject, name, error),
    );
    if (key !== undefined) {
      const held = this.#holds.get(key);
      const hold = held
        ? { index: Math.min(held.index, index), left: Promise.all([held.left, left]) }
        : { index, left };
      this.#holds.set(key, hold);
      void hold.left.then(() => {
        if (this.#holds.get(key) === hold) this.#holds.delete(key);
      });
    }
    return left;
  }

  #failed(subject: T, stage: string, error: unknown): PathEnd {
    this.options.failed(subject, stage, error);
    return { stoppedAt: stage, reason: "failed" };
  }
}
