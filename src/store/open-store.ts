import type { Store } from './store.js';
import { lockDatabase } from './sqlite/lock-database.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

export interface StorageOptions {
  /** The SQLite file. */
  path: string;
}

/**
 * Opens the configured store for a serving process: the SQLite file is locked to this process (a
 * second server on it is refused, naming the holder) until the store is closed.
 */
export function openStore(storage: StorageOptions): Store {
  const lock = lockDatabase(storage.path);
  try {
    const store = openSqliteStore(storage.path);
    const close = store.close.bind(store);
    store.close = async () => {
      try {
        await close();
      } finally {
        lock.release();
      }
    };
    return store;
  } catch (error) {
    lock.release();
    throw error;
  }
}
