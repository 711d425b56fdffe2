import { readFileSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { ConfigError } from '../../config/load-config.js';

interface Holder {
  pid: number;
  host: string;
  started: string;
}

/**
 * One expertq process owns a database (the dispatchers and the scheduler assume it). The
 * claim is a lock the kernel holds for the process: `<db>.lock` is a tiny SQLite file whose write lock
 * (a POSIX advisory lock, taken through SQLite rather than by hand: Node has no flock) the owner keeps
 * for its whole life. A second `serve`, SDK process or `restore` on the same database is refused at
 * once, naming the holder recorded in the file. When the owner dies in any way (`kill -9`, a power
 * cut, a container replaced with another of the same pid or a new hostname) the kernel drops the lock,
 * so a restart is never blocked by what a dead process left behind, and a live one is never mistaken
 * for dead. The file stays after a clean stop: it holds no claim by itself.
 */
export function lockDatabase(dbPath: string): { release(): void } {
  const lockPath = `${dbPath}.lock`;
  const db = openLockFile(lockPath, dbPath);
  try {
    claim(db, dbPath);
    db.prepare('DELETE FROM holder').run();
    db.prepare('INSERT INTO holder (pid, host, started) VALUES (?, ?, ?)').run(process.pid, hostname(), new Date().toISOString());
    db.exec('COMMIT');
    // Readers may see the holder from now on; the write lock is taken again and kept. Whoever slipped
    // in between holds it now, and this process is the one refused.
    claim(db, dbPath);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    release() {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** Takes the lock file's write lock (BEGIN IMMEDIATE, no waiting) or throws naming who holds it. */
function claim(db: Database.Database, dbPath: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL)');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw inUse(dbPath, holderOf(db));
  }
}

function holderOf(db: Database.Database): Holder | null {
  try {
    return (db.prepare('SELECT pid, host, started FROM holder').get() as Holder | undefined) ?? null;
  } catch {
    return null; // the holder is writing it this very moment
  }
}

function inUse(dbPath: string, holder: Holder | null): ConfigError {
  const who = holder === null ? 'another expertq process' : holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
  const since = holder === null ? '' : ` (started ${holder.started})`;
  return new ConfigError(`The database ${dbPath} is in use by ${who}${since}. Stop it first, or set another storage.path.`);
}

/**
 * Opens `<db>.lock`, replacing the plain-text lock of earlier versions (a JSON holder, judged alive by
 * its pid) unless the process it names still runs here.
 */
function openLockFile(lockPath: string, dbPath: string): Database.Database {
  const db = new Database(lockPath, { timeout: 0 });
  try {
    db.pragma('schema_version', { simple: true }); // reads the header: fails on a file that is not SQLite
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_NOTADB') throw error;
  }
  let legacy: Holder | null = null;
  try {
    legacy = JSON.parse(readFileSync(lockPath, 'utf8')) as Holder;
  } catch {
    // Unreadable: nothing to honour.
  }
  if (legacy && legacy.host === hostname() && legacy.pid !== process.pid && alive(legacy.pid)) throw inUse(dbPath, legacy);
  unlinkSync(lockPath);
  return new Database(lockPath, { timeout: 0 });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
