// Start-up with a pending index-building migration (SQLite): on the measured copy, the last migration
// that builds an index on `requests`, and every later one, are undone and `PRAGMA user_version` set
// back before it, so the next start runs them again on the whole history; timed from the fork until
// `/healthz` answers.
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../dist/store/sqlite/migrations.js';
import { call } from './calls.js';
import { fsyncFile } from './setup.js';
import { startHistoryServer } from './server.js';

/** The target: start-up at most 2 s even when a migration must build an index. */
export const MAX_START_MS = 2_000;

/** A migration's statements, comments left out. */
const statementsOf = (migration) => migration.split(';').map((s) => s.replace(/--.*$/gm, '').trim()).filter(Boolean);

/**
 * The statement that undoes one of a migration's: index and column additions, and tables it creates
 * (their rows, filled by the migration, go with them). Null when it cannot be undone.
 */
function undo(statement, created) {
  const index = /^CREATE INDEX (\w+) ON /i.exec(statement);
  if (index) return `DROP INDEX IF EXISTS ${index[1]}`;
  const column = /^ALTER TABLE (\w+) ADD COLUMN (\w+)/i.exec(statement);
  if (column) return `ALTER TABLE ${column[1]} DROP COLUMN ${column[2]}`;
  const table = /^CREATE (?:VIRTUAL )?TABLE (\w+)/i.exec(statement);
  // IF EXISTS: a later migration may have dropped it (a marker).
  if (table) return `DROP TABLE IF EXISTS ${table[1]}`;
  const fill = /^INSERT INTO (\w+)/i.exec(statement);
  if (fill && created.has(fill[1])) return 'SELECT 1';
  const dropped = /^DROP TABLE IF EXISTS (\w+)$/i.exec(statement);
  if (dropped && created.has(dropped[1])) return 'SELECT 1';
  // An index a later one replaced: built again as its migration first built it.
  const replaced = /^DROP INDEX (\w+)$/i.exec(statement);
  const original = replaced && MIGRATIONS.flatMap(statementsOf).find((s) => new RegExp(`^CREATE INDEX ${replaced[1]} ON `, 'i').test(s));
  if (original) return original.replace(/^CREATE INDEX /i, 'CREATE INDEX IF NOT EXISTS ');
  return null;
}

/**
 * The last migration that builds an index on `requests` (the table that grows with history), and the
 * statements undoing it and every later migration, newest first. Set back before it, the next start
 * runs them all again; each must be made of index and column additions, new tables and replaced
 * indexes only. Exported so a run checks this before its long measurements.
 */
export function indexMigration() {
  for (let v = MIGRATIONS.length - 1; v >= 0; v--) {
    const indexes = statementsOf(MIGRATIONS[v]).filter((s) => /^CREATE INDEX \w+ ON requests\b/i.test(s)).map((s) => s.split(/\s+/)[2]);
    if (indexes.length === 0) continue;
    const undoing = [];
    const created = new Set(
      MIGRATIONS.slice(v).flatMap((m) => statementsOf(m).flatMap((s) => /^CREATE (?:VIRTUAL )?TABLE (\w+)/i.exec(s)?.[1] ?? [])),
    );
    for (let later = MIGRATIONS.length - 1; later >= v; later--) {
      for (const statement of statementsOf(MIGRATIONS[later]).reverse()) {
        const back = undo(statement, created);
        if (back === null) throw new Error(`migration ${later + 1} cannot be replayed: "${statement.slice(0, 60)}…" is not an index or a column added`);
        undoing.push(back);
      }
    }
    return { version: v, indexes, undoing };
  }
  throw new Error('no migration builds an index on requests');
}

/**
 * Sets the SQLite database at `path` back before that migration (the server must be stopped), starts
 * the server from `configFile` and times until `/healthz` answers. Resolves with { ms, indexes,
 * estimatedMs, migratedMs }: the last two from the server's log (what it said the upgrade would take,
 * and what it took), null if it said nothing.
 */
export async function measurePendingMigrationStart({ path, configFile, facts }) {
  const { version, indexes, undoing } = indexMigration();
  const db = new Database(path);
  try {
    for (const statement of undoing) db.exec(statement);
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
  // Dropping a column rewrote the table: on disk before the start, as an operator's database would be.
  fsyncFile(path);
  const said = [];
  const server = await startHistoryServer({ configFile, env: {}, facts, forwardLogs: ['database schema:'], onLog: (entry) => said.push(entry) });
  try {
    await call(server.url, '/healthz');
    const ms = performance.now() - server.startedAt;
    const estimatedMs = said.find((entry) => entry.estimated_ms !== undefined)?.estimated_ms ?? null;
    const migratedMs = said.find((entry) => entry.ms !== undefined)?.ms ?? null;
    return { ms, indexes, estimatedMs, migratedMs };
  } finally {
    await server.close();
  }
}
