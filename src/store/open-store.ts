import { ConfigError } from '../config/load-config.js';
import { openPgStore } from './postgres/pg-store.js';
import type { Store } from './store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

/** Where the data lives: a SQLite file, or a PostgreSQL database shared by every instance. */
export type StorageOptions =
  | { path: string }
  | {
      /** `storage.url_env`, named in messages. */
      urlEnv: string;
      /** The URL that variable holds (undefined when it is unset). */
      url: string | undefined;
      poolSize: number;
    };

/**
 * Opens the configured store for a serving process. A SQLite file is held alone: a second server on
 * it is refused, naming the holder, until this store is closed. A PostgreSQL database is shared by
 * every instance pointed at it; its schema is migrated by the first to start.
 */
export async function openStore(storage: StorageOptions): Promise<Store> {
  if ('path' in storage) return openSqliteStore(storage.path, { exclusive: true });
  if (!storage.url) throw new ConfigError(`storage.url_env names ${storage.urlEnv}, which is not set: set it to the database's postgres:// URL.`);
  return openPgStore({ url: storage.url, poolSize: storage.poolSize });
}
