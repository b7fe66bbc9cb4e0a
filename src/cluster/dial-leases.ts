import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Coordinator } from "./coordinator.ts";

/**
 * Forward-ws adapters dial the implementation themselves, so only one instance may run each:
 * the holder of its `dial:<adapter>` lease. Every instance tries for the adapters nobody
 * holds, up to its fair share (adapters ÷ live instances, rounded up), so thirty accounts
 * spread over three instances, and a dead instance's accounts are dialled again by the
 * others once its leases lapse.
 */
export class DialLeases {
  readonly #held = new Set<string>();

  constructor(
    private readonly coordinator: Coordinator,
    /** The forward-ws adapters (read at every beat: they are built after the cluster). */
    private readonly adapters: () => readonly ChatAdapter[],
    private readonly logger: Logger,
  ) {}

  async beat(): Promise<void> {
    const adapters = this.adapters();
    if (adapters.length === 0) return;
    const { coordinator } = this;
    const lost = await coordinator.renew([...this.#held].map((id) => coordinator.keys.dial(id)));
    for (const key of lost) {
      const adapterId = key.slice(coordinator.keys.dial("").length);
      this.#held.delete(adapterId);
      this.logger.warn(
        { adapter: adapterId },
        "lost the dial lease of a forward-ws adapter; closing its connection",
      );
      await this.#adapter(adapterId)?.stop();
    }
    const alive = Math.max(1, (await coordinator.instances()).length);
    const share = Math.ceil(adapters.length / alive);
    // More than its share (it was alone when it started, or others joined since): hand the
    // excess back; the instances below their share dial them at their next beat.
    for (const adapterId of [...this.#held].slice(share)) {
      this.logger.info(
        { adapter: adapterId },
        "handing a forward-ws adapter to another instance (rebalancing)",
      );
      await this.#drop(adapterId);
    }
    for (const adapter of adapters) {
      if (this.#held.size >= share) break;
      if (this.#held.has(adapter.id)) continue;
      if ((await coordinator.claim(coordinator.keys.dial(adapter.id))) !== coordinator.id) continue;
      this.#held.add(adapter.id);
      this.logger.info({ adapter: adapter.id }, "dialling a forward-ws adapter for the cluster");
      await adapter.start();
    }
  }

  /** Adapters this instance dials now. */
  get held(): readonly string[] {
    return [...this.#held];
  }

  async releaseAll(): Promise<void> {
    for (const adapterId of [...this.#held]) await this.#drop(adapterId);
  }

  async #drop(adapterId: string): Promise<void> {
    this.#held.delete(adapterId);
    await this.#adapter(adapterId)?.stop();
    await this.coordinator.release(this.coordinator.keys.dial(adapterId));
  }

  #adapter(id: string): ChatAdapter | undefined {
    return this.adapters().find((adapter) => adapter.id === id);
  }
}
