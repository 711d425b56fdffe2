// Start-up with a pending index-building migration (SQLite): on the measured copy, the indexes of the
// last migration that only creates indexes are dropped and `PRAGMA user_version` set back before it,
// so the next start runs it again on the whole history; timed from the fork until `/healthz` answers.
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../dist/store/sqlite/migrations.js';
import { call } from './calls.js';
import { startHistoryServer } from './server.js';

/** The target: start-up at most 2 s even when a migration must build an index. */
export const MAX_START_MS = 2_000;

/** The last migration made only of CREATE INDEX statements, with its version and index names. */
function indexMigration() {
  for (let v = MIGRATIONS.length - 1; v >= 0; v--) {
    const statements = MIGRATIONS[v].split(';').map((s) => s.replace(/--.*$/gm, '').trim()).filter(Boolean);
    if (statements.length > 0 && statements.every((s) => /^CREATE INDEX \w+ ON /i.test(s))) {
      // Set back before it, every later migration would run again too: only the last one can be replayed.
      if (v !== MIGRATIONS.length - 1) throw new Error(`the last index-only migration is ${v + 1} of ${MIGRATIONS.length}: only the last one can be replayed`);
      return { version: v, indexes: statements.map((s) => s.split(/\s+/)[2]) };
    }
  }
  throw new Error('no migration only creates indexes');
}

/**
 * Sets the SQLite database at `path` back before that migration (the server must be stopped), starts
 * the server from `configFile` and times until `/healthz` answers. Resolves with { ms, indexes }.
 */
export async function measurePendingMigrationStart({ path, configFile, facts }) {
  const { version, indexes } = indexMigration();
  const db = new Database(path);
  try {
    for (const name of indexes) db.exec(`DROP INDEX ${name}`);
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
  const server = await startHistoryServer({ configFile, env: {}, facts });
  try {
    await call(server.url, '/healthz');
    const ms = performance.now() - server.startedAt;
    return { ms, indexes };
  } finally {
    await server.close();
  }
}
