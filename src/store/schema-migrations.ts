/** What the migration runners share, whatever the database: the migration record and its checks. */

/**
 * One schema change, run by `up` on the database's `Db` (`Done`: void, or a Promise of it).
 * Versions increase; an applied version never changes (add a new one instead).
 */
export interface SchemaMigration<Db, Done> {
  version: number;
  name: string;
  up(db: Db): Done;
}

/** Throws unless the versions increase. */
export function checkOrdered(migrations: readonly { version: number; name: string }[]): void {
  migrations.forEach((migration, index) => {
    const previous = migrations[index - 1];
    if (previous && migration.version <= previous.version) {
      throw new Error(`migration ${migration.version} (${migration.name}) is out of order`);
    }
  });
}

/** Throws when the database's schema is newer than the newest migration this build knows. */
export function checkNotNewer(newestApplied: number, newestKnown: number): void {
  // Running older code on a newer schema could silently corrupt data.
  if (newestApplied > newestKnown) {
    throw new Error(
      `database schema version ${newestApplied} is newer than this build supports (${newestKnown})`,
    );
  }
}

/**
 * The one start-up line for the migrations just applied: "database created (18 migrations)" or
 * "database upgraded 14 → 18"; each migration has a debug line of its own.
 */
export function logMigrations(
  logger: { info(fields: object, message: string): void },
  newestBefore: number,
  applied: readonly number[],
): void {
  const newest = applied.at(-1);
  if (newest === undefined) return;
  logger.info(
    { from: newestBefore, to: newest, applied: applied.length },
    newestBefore === 0
      ? `database created (${applied.length} migrations)`
      : `database upgraded ${newestBefore} → ${newest}`,
  );
}
