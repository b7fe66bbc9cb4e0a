import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { MIGRATIONS, type Migration } from "../../src/store/sqlite/migrations.ts";
import { captureLog, makeTempDir, type TempDir } from "../support/store.ts";

const ADD_NOTES: Migration = {
  version: 1000,
  name: "notes",
  up: (sql) => sql("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"),
};

function appliedMigrationLogs(lines: Array<Record<string, unknown>>): unknown[] {
  return lines.filter((line) => line.msg === "applied database migration").map((line) => line.version);
}

describe("database migrations", () => {
  let dir: TempDir;
  let file: string;

  beforeEach(() => {
    dir = makeTempDir();
    file = join(dir.path, "nested", "deeper", "tsumugi.db");
  });

  afterEach(() => dir.remove());

  it("creates the directory, opens in WAL mode and applies each migration once", () => {
    const first = captureLog();
    const db = openSqliteDatabase(file, first.logger);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    expect(db.pragma("busy_timeout", { simple: true })).toBeGreaterThan(0);
    expect(appliedMigrationLogs(first.lines)).toEqual(MIGRATIONS.map((migration) => migration.version));
    db.close();

    const second = captureLog();
    const reopened = openSqliteDatabase(file, second.logger);
    expect(appliedMigrationLogs(second.lines)).toEqual([]);
    const versions = reopened.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((migration) => migration.version));
    reopened.close();
  });

  it("applies only migrations added since the last open", () => {
    openSqliteDatabase(file, captureLog().logger).close();

    const log = captureLog();
    const db = openSqliteDatabase(file, log.logger, [...MIGRATIONS, ADD_NOTES]);
    expect(appliedMigrationLogs(log.lines)).toEqual([1000]);
    db.prepare("INSERT INTO notes (body) VALUES (?)").run("kept");
    db.close();

    const again = openSqliteDatabase(file, captureLog().logger, [...MIGRATIONS, ADD_NOTES]);
    expect(again.prepare("SELECT body FROM notes").pluck().all()).toEqual(["kept"]);
    again.close();
  });

  it("rolls a failing migration back entirely and leaves it pending", () => {
    const broken: Migration = {
      version: 1000,
      name: "half done",
      up(sql) {
        sql("CREATE TABLE half_done (id INTEGER)");
        sql("THIS IS NOT SQL");
      },
    };
    expect(() => openSqliteDatabase(file, captureLog().logger, [...MIGRATIONS, broken])).toThrow();

    const db = openSqliteDatabase(file, captureLog().logger);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).not.toContain("half_done");
    expect(db.prepare("SELECT MAX(version) FROM schema_migrations").pluck().get()).toBe(
      MIGRATIONS.at(-1)?.version,
    );
    db.close();
  });

  it("refuses a database whose schema is newer than this build", () => {
    openSqliteDatabase(file, captureLog().logger, [...MIGRATIONS, ADD_NOTES]).close();
    expect(() => openSqliteDatabase(file, captureLog().logger)).toThrow(
      "database schema version 1000 is newer than this build supports",
    );
  });

  it("refuses migrations listed out of order", () => {
    const outOfOrder = [ADD_NOTES, ...MIGRATIONS];
    expect(() => openSqliteDatabase(file, captureLog().logger, outOfOrder)).toThrow("out of order");
  });
});
