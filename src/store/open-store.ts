import type { Logger } from 'pino';
import { ConfigError } from '../config/load-config.js';
import { openPgStore } from './postgres/pg-store.js';
import type { Store } from './store.js';
import type { SchemaUpgrade } from './sqlite/open-database.js';
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
export async function openStore(storage: StorageOptions, log?: Logger): Promise<Store> {
  if ('path' in storage) return openSqliteStore(storage.path, { exclusive: true, ...(log ? { onUpgrade: logSchemaUpgrade(log) } : {}) });
  if (!storage.url) throw new ConfigError(`storage.url_env names ${storage.urlEnv}, which is not set: set it to the database's postgres:// URL.`);
  return openPgStore({ url: storage.url, poolSize: storage.poolSize });
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000).toLocaleString('en-US'));

/**
 * The log lines of a start that upgrades the schema: how long it should take, said before the
 * server stops answering for it (building an index on a year of requests takes seconds), then how
 * long it took.
 */
function logSchemaUpgrade(log: Logger): (step: SchemaUpgrade) => void {
  return (step) => {
    if (step.phase === 'starting') {
      log.info(
        { from: step.from, to: step.to, rows: step.rows, estimated_ms: step.estimatedMs },
        `database schema: upgrading from version ${step.from} to ${step.to}, reading about ${step.rows.toLocaleString('en-US')} rows: ` +
          `about ${seconds(step.estimatedMs)} s before the server listens`,
      );
    } else {
      log.info({ from: step.from, to: step.to, ms: step.ms }, `database schema: upgraded to version ${step.to} in ${seconds(step.ms)} s`);
    }
  };
}
