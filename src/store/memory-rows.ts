import type { MemoryEntry, MemoryOrigin, MemorySource, MemorySubject } from "./memory-types.ts";

/** What the memory stores share, whatever the database: their rows and how a row becomes an entry. */

export interface MemoryRow {
  id: number;
  subject: string;
  subject_name: string;
  content: string;
  origin: string;
  plugin_id: string | null;
  session_id: string;
  created_at: number;
  updated_at: number;
  confirmations: number;
  confirmed_at: number;
}

export interface SourceRow {
  session_id: string;
  message_id: string;
  user_id: string;
  time: number;
}

/** The columns of a `MemoryRow`, from `memories` aliased `m`. */
export const MEMORY_COLUMNS = `m.id, m.subject, m.subject_name, m.content, m.origin, m.plugin_id, m.session_id,
  m.created_at, m.updated_at, m.confirmations, m.confirmed_at`;

export function toMemorySource(row: SourceRow): MemorySource {
  return { sessionId: row.session_id, messageId: row.message_id, userId: row.user_id, time: row.time };
}

export function toMemoryEntry(row: MemoryRow, sources: MemorySource[]): MemoryEntry {
  return {
    id: row.id,
    subject: row.subject as MemorySubject,
    subjectName: row.subject_name,
    content: row.content,
    origin: row.origin as MemoryOrigin,
    ...(row.plugin_id === null ? {} : { pluginId: row.plugin_id }),
    sessionId: row.session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    confirmations: row.confirmations,
    confirmedAt: row.confirmed_at,
    sources,
  };
}
