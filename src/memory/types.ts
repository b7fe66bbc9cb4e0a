/**
 * Long-term memory: short facts about people and groups, each with where, when and
 * from which messages it was learned. The store keeps and searches them; the memory service
 * (src/memory/memory-service.ts) decides what a turn recalls and what it learns.
 *
 * What the store reads and writes is declared in src/store/memory-types.ts, since store/ may not
 * import memory/ (a higher layer, docs/architecture.md); it is re-exported here.
 */

/**
 * A memory as plugins see it, and memory as one plugin call may use it: scoped to the chat the
 * call came from, under the same rules as the planner's tools. Declared with the SDK, which
 * plugins import (the sdk layer sits below memory/); src/memory/plugin-access.ts implements it.
 */
export type { PluginMemory, PluginMemoryAccess } from "../sdk/types.ts";
export type {
  MemoryEntry,
  MemoryHit,
  MemoryListQuery,
  MemoryOrigin,
  MemorySearch,
  MemorySource,
  MemoryStore,
  MemorySubject,
  NewMemory,
} from "../store/memory-types.ts";
export { groupSubject, personSubject } from "../store/memory-types.ts";
