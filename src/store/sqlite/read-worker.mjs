// The thread behind `worker-reader.ts`: a read-only connection to the store's database file that runs
// the statements posted to it and answers each by message. Plain JavaScript that imports nothing of
// ours, so the same file runs from src/ (tests) and from dist/ (copied there by the build).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

// As the main thread's reader (open-database.ts): it sees the last commit (WAL) and may not write, but
// it may checkpoint (copy the WAL into the database file), which changes no data.
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
db.pragma('query_only = ON');

/** Statements prepared once per distinct text: there are few, and preparing costs more than running. */
const statements = new Map();
const prepare = (sql) => {
  let stmt = statements.get(sql);
  if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
  return stmt;
};

parentPort.on('message', (message) => {
  if (message.type === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const { id, method, sql, params } = message;
  try {
    // Copies what the WAL holds into the database file without waiting for the writer (worker-reader.ts).
    if (method === 'checkpoint') {
      db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ id });
      return;
    }
    const stmt = prepare(sql);
    const args = params === undefined ? [] : Array.isArray(params) ? params : [params];
    parentPort.postMessage({ id, result: method === 'get' ? stmt.get(...args) : stmt.all(...args) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
