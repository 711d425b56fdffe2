import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { lockDatabase } from './lock-database.js';
import { MIGRATIONS } from './migrations.js';
import { defineSearchFunctions } from './request-search.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * Work on a SQLite database file from outside the server (`expertq backup`, `restore`, `prune`). Errors
 * are thrown as `MaintenanceError`, whose message is meant for the operator as it is.
 */
export class MaintenanceError extends Error {
  override readonly name = 'MaintenanceError';
}

/** Opens an existing database at this expertq's schema for maintenance (read-only for a dry run); no migration runs. */
export function openForMaintenance(path: string, options: { readonly: boolean }): SqliteStore {
  const db = openExisting(path, options);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== MIGRATIONS.length) {
    db.close();
    throw new MaintenanceError(`The database ${path} is not at this expertq's schema; start the server once (it migrates), then prune.`);
  }
  return new SqliteStore(db, db);
}

/**
 * Copies a live database to `target` with SQLite's online backup: all pages in one step, from one read
 * snapshot, so the server's writes never restart the copy (and WAL readers do not block the writer).
 */
export async function backupDatabase(source: string, target: string): Promise<void> {
  const db = openExisting(source, { readonly: true });
  try {
    await db.backup(target, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
  } finally {
    db.close();
  }
}

/**
 * `PRAGMA integrity_check` of a database file: "ok" or the first problem. `standalone` (a fresh backup)
 * also switches it to a rollback journal, so the copy is one self-contained file with no -wal beside it.
 */
export function integrityOf(path: string, options: { standalone?: boolean } = {}): string {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: !options.standalone, fileMustExist: true });
  } catch (error) {
    return (error as Error).message;
  }
  try {
    if (options.standalone) db.pragma('journal_mode = DELETE');
    return String(db.pragma('integrity_check', { simple: true }));
  } catch (error) {
    return (error as Error).message;
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `target` with the backup `source`. The server's lock is taken first (so no
 * server runs on it now); the current database and its -wal and -shm are moved aside, never deleted.
 * Returns where the replaced database went (null when there was none).
 */
export function restoreDatabase(source: string, target: string): { aside: string | null } {
  const lock = lockDatabase(target);
  try {
    const aside = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    // The -wal and -shm files belong to the current database: they move with it, never onto the backup.
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, aside + suffix);
    copyFileSync(source, `${target}.partial`);
    syncFile(`${target}.partial`);
    renameSync(`${target}.partial`, target);
    return { aside: existsSync(aside) ? aside : null };
  } finally {
    lock.release();
  }
}

export function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function openExisting(path: string, options: { readonly: boolean }): Database.Database {
  if (!existsSync(path)) throw new MaintenanceError(`There is no database at ${path} (storage.path).`);
  const db = new Database(path, { readonly: options.readonly, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // The store's statements use expertq's word rules (a prune keeps the text index in step).
  defineSearchFunctions(db);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    db.close();
    throw new MaintenanceError(`The database ${path} is at schema ${version}, newer than this expertq (${MIGRATIONS.length}); use the newer expertq.`);
  }
  return db;
}
