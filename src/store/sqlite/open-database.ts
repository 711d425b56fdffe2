import { closeSync, existsSync, openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { ConfigError } from '../../config/load-config.js';
import { estimateMigrations } from './migration-estimate.js';
import { MIGRATIONS } from './migrations.js';
import { defineSearchFunctions } from './request-search.js';

/** How long a write waits for another process's write lock, blocking the event loop meanwhile. */
export const BUSY_TIMEOUT_MS = 250;

/** Opens (creating if needed) a SQLite database with the durability expertq promises, migrated to this version's schema. */
export function openDatabase(path: string, onUpgrade?: (step: SchemaUpgrade) => void): Database.Database {
  // A new database is the owner's only (SQLite gives its -wal and -shm the same mode): it holds
  // consumers' signing secrets. An existing file keeps the mode its operator chose.
  if (path !== ':memory:' && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // FULL: an acknowledged decision survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Transactions that share a commit each run in a savepoint, whose sub-journal (a copy of every page
  // the transaction changes) would otherwise spill to a temporary file past 64 KB: a fifth more work
  // for a batch of a thousand due rows.
  db.pragma('temp_store = MEMORY');
  // This process is the database's only writer (the lock): a busy database means another process (an
  // operator's sqlite3, `expertq prune`) holds the write lock. Waiting for it blocks the event loop, so
  // wait briefly; a write that still cannot go answers 503 with Retry-After, and the scheduler and the
  // dispatchers try again on their next turn.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  defineSearchFunctions(db);
  migrate(db, onUpgrade);
  return db;
}

/**
 * A second connection to the same file for reads outside transactions: in WAL mode it sees the last
 * commit and never what the writer has in progress, and it may not write.
 */
export function openReader(path: string): Database.Database {
  const db = new Database(path, { fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('query_only = ON');
  defineSearchFunctions(db);
  return db;
}

/** What a start that upgrades an existing database's schema says: before, with an estimate, and after. */
export type SchemaUpgrade =
  | { phase: 'starting'; from: number; to: number; rows: number; estimatedMs: number }
  | { phase: 'done'; from: number; to: number; ms: number };

export function migrate(db: Database.Database, onUpgrade: (step: SchemaUpgrade) => void = () => {}): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new ConfigError(
      `The database ${db.name} is at schema version ${version}, newer than this expertq (${MIGRATIONS.length}): a newer expertq has used it. ` +
        'Run that version, or restore the backup taken before the upgrade (docs/operations.md).',
    );
  }
  // A new database (version 0) has nothing to read: only an upgrade is announced.
  const upgrading = version > 0 && version < MIGRATIONS.length;
  const started = performance.now();
  if (upgrading) {
    const { rows, ms } = estimateMigrations(db, MIGRATIONS.slice(version));
    onUpgrade({ phase: 'starting', from: version, to: MIGRATIONS.length, rows, estimatedMs: ms });
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  if (upgrading) onUpgrade({ phase: 'done', from: version, to: MIGRATIONS.length, ms: Math.round(performance.now() - started) });
}
