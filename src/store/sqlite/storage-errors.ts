import { Conflict, StorageUnavailable, type StorageUnavailableCode } from '../errors.js';

/**
 * SQLite result codes (extended ones included: `SQLITE_IOERR_WRITE`, `SQLITE_READONLY_DBMOVED`, …)
 * that say the storage failed, not the statement.
 */
const UNAVAILABLE: Array<[RegExp, StorageUnavailableCode]> = [
  [/^SQLITE_FULL/, 'full'],
  [/^SQLITE_IOERR/, 'io_error'],
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_CANTOPEN/, 'cannot_open'],
  [/^SQLITE_(CORRUPT|NOTADB)/, 'corrupt'],
  [/^SQLITE_BUSY/, 'busy'],
];

const CONFLICT = /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/;

/**
 * The driver-neutral error for a better-sqlite3 error (see `errors.ts`); any other error, including
 * one already translated, is returned as it is.
 */
export function toStoreError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const unavailable = UNAVAILABLE.find(([pattern]) => pattern.test(code));
  if (unavailable) return new StorageUnavailable(unavailable[1], error.message, { cause: error });
  if (CONFLICT.test(code)) return new Conflict(error.message, { cause: error });
  return error;
}

/** A storage failure other than a busy lock: what `/readyz` remembers (a lock is checked on its own). */
export function isStorageFault(error: unknown): boolean {
  return error instanceof StorageUnavailable && error.code !== 'busy';
}

