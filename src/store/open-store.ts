import type { Store } from './store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

export interface StorageOptions {
  /** The SQLite file. */
  path: string;
}

/**
 * Opens the configured store for a serving process, which holds it alone: a second server on the
 * same SQLite file is refused, naming the holder, until this store is closed.
 */
export function openStore(storage: StorageOptions): Store {
  return openSqliteStore(storage.path, { exclusive: true });
}
