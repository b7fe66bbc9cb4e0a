import type { Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import { checkNotNewer, checkOrdered, logMigrations } from "../schema-migrations.ts";
import type { Migration } from "./migrations.ts";

/**
 * Brings the schema up to date: applies, in order, each migration whose version is not yet
 * in `schema_migrations`, each in its own transaction together with its bookkeeping row.
 * Returns the versions applied now.
 */
export function applyMigrations(db: Database, migrations: readonly Migration[], logger: Logger): number[] {
  checkOrdered(migrations);
  db.exec(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    )
  `);
  const appliedVersions = new Set(
    db
      .prepare("SELECT version FROM schema_migrations")
      .all()
      .map((row) => (row as { version: number }).version),
  );
  const newestKnown = migrations.at(-1)?.version ?? 0;
  const newestApplied = Math.max(0, ...appliedVersions);
  checkNotNewer(newestApplied, newestKnown);

  const recordApplied = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
  );
  const applied: number[] = [];
  for (const migration of migrations) {
    if (appliedVersions.has(migration.version)) continue;
    db.transaction(() => {
      migration.up((statements) => db.exec(statements));
      recordApplied.run(migration.version, migration.name, Date.now());
    })();
    logger.debug({ version: migration.version, name: migration.name }, "applied database migration");
    applied.push(migration.version);
  }
  logMigrations(logger, newestApplied, applied);
  return applied;
}
