/**
 * SQLite result codes that say the storage failed, not the statement: the disk is full or read-only,
 * I/O failed, or another process holds the write lock (`SQLITE_BUSY`). Work that fails so is not at
 * fault and must not be judged for it: it is retried, and an API caller is told to try again.
 */
const STORAGE_FAILURE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|BUSY)/;

const codeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

export function isStorageFailure(error: unknown): boolean {
  return STORAGE_FAILURE.test(codeOf(error));
}

/** A storage failure other than a busy lock: what `/readyz` remembers (a lock is checked on its own). */
export function isStorageFault(error: unknown): boolean {
  return isStorageFailure(error) && !codeOf(error).startsWith('SQLITE_BUSY');
}
