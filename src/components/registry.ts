import { type Component, type Disposer, inScope, type SessionRef } from "./types.ts";

/**
 * The active components of one kind. Adding returns the disposer that removes exactly that
 * registration; a disabled or unloaded component is simply not here.
 */
export class ComponentRegistry<T extends Component> {
  private readonly items = new Map<string, T>();
  /** By full name, so declarations keep one order whatever was switched off and on (prefix caches). */
  private ordered: T[] | undefined;

  /** Throws when the component cannot be added (its full name is taken). */
  add(component: T): Disposer {
    if (this.items.has(component.fullName)) {
      throw new Error(`${component.kind} ${component.fullName} is already registered`);
    }
    this.items.set(component.fullName, component);
    this.ordered = undefined;
    return () => {
      if (this.items.get(component.fullName) !== component) return;
      this.items.delete(component.fullName);
      this.ordered = undefined;
    };
  }

  /** Every component, ordered by full name. */
  all(): T[] {
    this.ordered ??= [...this.items.values()].sort((a, b) => (a.fullName < b.fullName ? -1 : 1));
    return this.ordered;
  }

  /** The registration under a full name, if any. */
  get(fullName: string): T | undefined {
    return this.items.get(fullName);
  }

  get size(): number {
    return this.items.size;
  }

  /** Components that apply to the session, ordered by full name. */
  visibleIn(session: SessionRef): T[] {
    return this.all().filter((item) => inScope(item.scope, session));
  }
}
