import pg from 'pg';
import { StorageUnavailable } from '../errors.js';
import type { InstanceRecord, Reads, Store, TransactionOptions, Tx } from '../store.js';
import { StoreReads } from '../store-reads.js';
import { migratePg } from './migrate.js';
import { PgChangeFeed } from './pg-change-feed.js';
import type { PgAsks } from './asks.js';
import { createPgRepositories } from './repositories.js';
import type { PgInsights } from './insights.js';
import { PeriodZone } from '../shared/period-zone.js';
import { pgTypes } from './sql.js';
import { connect, poolDb, TxConnection } from './connection.js';
import type { ColumnTypes } from './insert-buffer.js';
import { isRetryable, toStoreError } from './storage-errors.js';
import { LoadHints } from './load-hints.js';
import { OlderInstances } from './generation.js';

export interface PgStoreOptions {
  /** A `postgres://` URL. */
  url: string;
  /** Connections in this process's pool (`storage.pool_size`). */
  poolSize?: number;
  /** How long routing weighs an expert on a state this instance read (default `HINT_MS`). */
  hintMs?: number;
}

/** A PostgreSQL transaction: its asks repository also offers the hint protocol (`PgAsks`) to tests. */
export interface PgTx extends Tx {
  readonly asks: PgAsks;
}

/** A transaction that lost a race (deadlock, serialization failure) is run again this many times in all. */
const MAX_ATTEMPTS = 5;

/** Opens the PostgreSQL store: a pool on `url`, the schema migrated (one instance at a time). */
export async function openPgStore(options: PgStoreOptions): Promise<PgStore> {
  // Pipelined connections: a transaction's writes go out without waiting for each other (TxConnection).
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types: pgTypes, connectionTimeoutMillis: 5_000, pipeline: true });
  // An idle connection the server dropped (a restart, a failover) is discarded by the pool; the next
  // query opens a new one. Without a listener the error would end the process.
  pool.on('error', () => {});
  try {
    await migratePg(pool, redact(options.url));
  } catch (error) {
    await pool.end();
    const translated = toStoreError(error);
    if (translated instanceof StorageUnavailable) {
      throw new StorageUnavailable(translated.code, `Cannot open the PostgreSQL database ${redact(options.url)}: ${translated.message}`, { cause: error });
    }
    throw translated;
  }
  const changes = new PgChangeFeed(pool, options.url);
  let columnTypes: ColumnTypes;
  try {
    columnTypes = await readColumnTypes(pool);
    await changes.start();
  } catch (error) {
    await pool.end();
    throw toStoreError(error);
  }
  return new PgStore(pool, changes, columnTypes, new LoadHints(options.hintMs));
}

/** The columns of this schema's tables and their types, for the inserts a transaction sends as arrays. */
export async function readColumnTypes(db: pg.Pool | pg.ClientBase): Promise<ColumnTypes> {
  const { rows } = await db.query<{ table: string; column: string; type: string }>(`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, NULL) AS type
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`);
  const types = new Map<string, Map<string, string>>();
  for (const r of rows) {
    let table = types.get(r.table);
    if (!table) types.set(r.table, (table = new Map()));
    table.set(r.column, r.type);
  }
  return types;
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the PostgreSQL database';
  }
}

/**
 * The PostgreSQL engine. Every transaction runs on a connection of its own from the pool (READ
 * COMMITTED); reads of an aggregate's root inside one lock its row, so two instances changing one
 * request or proposal take turns, and the second sees what the first committed. A transaction that
 * loses a deadlock or serialization race is rolled back and run again from the start: its work only
 * reads and writes through `tx`, so running it again is safe.
 */
/** How often an instance folds the insight rollups' journal, when it appended to it (and before every insights read). */
const FOLD_EVERY_MS = 30_000;

export class PgStore extends StoreReads implements Store {
  /** `hints`: experts' states as this instance last read or committed them, routing's hints (`TransactionOptions.optimisticRouting`). */
  constructor(
    readonly pool: pg.Pool,
    readonly changes: PgChangeFeed,
    private readonly columnTypes: ColumnTypes,
    private readonly hints = new LoadHints(),
    private readonly older = new OlderInstances(),
    private readonly zone = new PeriodZone(),
  ) {
    super(createPgRepositories(poolDb(pool), false, null, true, null, zone));
    this.folder = setInterval(() => {
      if (!this.unfolded || this.folding) return;
      this.folding = true;
      // A failure leaves the journal as it was: the next round, or another instance, folds it.
      this.foldInsights()
        .catch(() => {})
        .finally(() => (this.folding = false));
    }, FOLD_EVERY_MS).unref();
  }

  /** Whether this instance appended to the insight rollups' journal since it last folded; true at first, for what a crash left. */
  private unfolded = true;
  private folding = false;
  private readonly folder: NodeJS.Timeout;

  async foldInsights(): Promise<void> {
    this.unfolded = false;
    try {
      await this.transaction((tx) => (tx.insights as PgInsights).fold());
    } catch (error) {
      this.unfolded = true;
      throw error;
    }
  }

  keepInsightsIn(zone: string, onRebuild?: (hourRows: number, estimatedMs: number) => void): Promise<boolean> {
    return this.transaction((tx) => (tx.insights as PgInsights).keepIn(zone, onRebuild));
  }

  async transaction<T>(work: (tx: PgTx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return (await this.run(work, null, options)).value;
  }

  transactionThenRead<T, R>(
    work: (tx: PgTx) => Promise<T>,
    read: (reads: Reads, value: T) => Promise<R>,
    options: TransactionOptions = {},
  ): Promise<{ value: T; read: R | undefined }> {
    return this.run(work, read, options);
  }

  private async run<T, R>(
    work: (tx: PgTx) => Promise<T>,
    read: ((reads: Reads, value: T) => Promise<R>) | null,
    options: TransactionOptions,
  ): Promise<{ value: T; read: R | undefined }> {
    for (let attempt = 1; ; attempt++) {
      const client = await connect(this.pool);
      let broken = false;
      const connection = new TxConnection(client, this.columnTypes);
      // The last attempt reads every expert settled: a transaction routed on hints that proved stale
      // each time still ends.
      const { tx, asks } = this.txOn(connection, attempt < MAX_ATTEMPTS);
      try {
        connection.send('BEGIN');
        if (options.optimisticRouting) asks.useHints();
        const value = await work(tx);
        // Experts given asks on a hint are checked with the commit; one that no longer holds fails it (`StaleHints`).
        asks.checkPlaced();
        // The rollups it counted, merged, go out just before the commit.
        if (await (tx.insights as PgInsights).flush()) this.unfolded = true;
        // The commit goes out behind the last writes; if one of them failed, the server rolled back
        // instead, and `settle` says which write it was. The read goes out behind the commit.
        connection.send('COMMIT');
        const reading = read?.(createPgRepositories(connection, false, null, true, null, this.zone), value).catch(() => undefined);
        await connection.settle();
        asks.finish(true);
        return { value, read: await reading };
      } catch (error) {
        asks.finish(false);
        try {
          await connection.settle().catch(() => {});
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        if (isRetryable(error) && attempt < MAX_ATTEMPTS) continue;
        throw toStoreError(error);
      } finally {
        client.release(broken);
      }
    }
  }

  async checkWritable(): Promise<void> {
    let row: { recovery: boolean } | undefined;
    try {
      row = (await this.pool.query('SELECT pg_is_in_recovery() AS recovery')).rows[0] as { recovery: boolean };
    } catch (error) {
      throw toStoreError(error);
    }
    if (row?.recovery) throw new StorageUnavailable('read_only', 'the database is a read-only replica (in recovery)');
  }

  /** Nothing runs in the background here: a request's words are indexed as it is written. */
  async settle(): Promise<void> {}

  noteInstances(live: readonly InstanceRecord[]): void {
    this.older.note(live);
  }

  async close(): Promise<void> {
    clearInterval(this.folder);
    // What the last transactions counted, folded while the database is reachable (else by another instance or the next start).
    if (this.unfolded) await this.foldInsights().catch(() => {});
    await this.changes.close();
    await this.pool.end();
  }

  private txOn(connection: TxConnection, hintsAllowed: boolean): { tx: PgTx; asks: PgAsks } {
    let depth = 0;
    const repositories = createPgRepositories(connection, true, this.hints, hintsAllowed, this.older, this.zone);
    const asks = repositories.asks as PgAsks;
    const tx: PgTx = {
      ...repositories,
      asks,
      savepoint: async (work) => {
        const name = `nested_${++depth}`;
        connection.send(`SAVEPOINT ${name}`);
        const counted = (repositories.insights as PgInsights).buffer.mark();
        try {
          const value = await work(tx);
          // A write inside that failed must fail this savepoint, not the statements after it.
          await connection.settle();
          connection.send(`RELEASE SAVEPOINT ${name}`);
          return value;
        } catch (error) {
          await connection.settle().catch(() => {});
          connection.forgetFailure();
          // States read inside may count asks the rollback undoes.
          asks.memo.forget();
          await connection.query(`ROLLBACK TO SAVEPOINT ${name}`);
          (repositories.insights as PgInsights).buffer.rollBack(counted);
          connection.send(`RELEASE SAVEPOINT ${name}`);
          throw error;
        } finally {
          depth--;
        }
      },
    };
    return { tx, asks };
  }
}
