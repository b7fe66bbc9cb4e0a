/**
 * The statements creating the tables of groups' learned expressions, as both backends run
 * them with their own types: the row id (SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity)
 * and Unix milliseconds (INTEGER, BIGINT). `day` is chat.timezone's date of the passes counted.
 */
export function groupExpressionTables(types: { id: string; time: string }): string[] {
  return [
    `CREATE TABLE group_expressions (
      id ${types.id},
      session_id TEXT NOT NULL,
      expression TEXT NOT NULL,
      meaning TEXT NOT NULL,
      example TEXT NOT NULL,
      updated_at ${types.time} NOT NULL
    )`,
    "CREATE INDEX group_expressions_session_idx ON group_expressions (session_id, id)",
    `CREATE TABLE group_expression_progress (
      session_id TEXT PRIMARY KEY,
      day TEXT NOT NULL DEFAULT '',
      passes INTEGER NOT NULL DEFAULT 0,
      edited_at ${types.time} NOT NULL DEFAULT 0,
      forgotten_at ${types.time} NOT NULL DEFAULT 0
    )`,
  ];
}
