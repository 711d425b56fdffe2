import type pg from 'pg';
import type { Row } from '../row-records.js';
import type { Db } from './sql.js';
import { type ColumnTypes, InsertBuffer } from './insert-buffer.js';
import { statement } from './statement.js';
import { toStoreError } from './storage-errors.js';

/** The pool, for reads outside transactions (each autocommitted): errors arrive translated. */
export function poolDb(pool: pg.Pool): Db {
  return {
    query: (text, values) =>
      pool.query(statement(text, values)).catch((error: unknown) => {
        throw toStoreError(error);
      }),
    readSerially: (work) => readSerially(pool, work),
  };
}

/** A connection from the pool; a pool that cannot give one throws the store's error. */
export async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw toStoreError(error);
  }
}

/**
 * `Db.readSerially` on the pool: one connection, a read-only transaction, parallel plans off. The
 * transaction's start goes out with the work's first statements, and its end behind the answer (a
 * read-only commit changes nothing the caller waits for): one round trip for statements sent at once.
 */
async function readSerially<T>(pool: pg.Pool, work: (db: Db) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  const db: Db = { query: (text, values) => client.query(statement(text, values)) };
  const begun = Promise.all([db.query('BEGIN READ ONLY'), db.query('SET LOCAL max_parallel_workers_per_gather = 0')]);
  begun.catch(() => {}); // its failure fails the work's statements too, and is thrown below
  let value: T;
  try {
    value = await work(db);
    await begun;
  } catch (error) {
    const broken = await client.query('ROLLBACK').then(() => false, () => true);
    client.release(broken);
    throw toStoreError(error);
  }
  client.query('COMMIT').then(
    () => client.release(),
    () => client.release(true),
  );
  return value;
}

/**
 * One pooled connection inside a transaction. Statements are pipelined: a write whose result nobody
 * reads (`send`) goes out without waiting for the ones before it to be answered, and the statements
 * issued in one event-loop turn leave in one network write. A read (`query`) waits for its rows, and
 * so for everything sent before it. A failed write fails the transaction: it is reported by the next
 * read, by `settle`, or by the commit, whichever comes first.
 */
export class TxConnection implements Db {
  private pending: Array<Promise<unknown>> = [];
  private failure: unknown = undefined;
  private corked = false;
  private readonly inserts: InsertBuffer;

  constructor(
    private readonly client: pg.PoolClient,
    columnTypes: ColumnTypes,
  ) {
    this.inserts = new InsertBuffer(columnTypes);
  }

  query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    this.flushInserts();
    this.batch();
    return this.client.query(statement(text, values)).catch((error: unknown) => {
      // After a failed write the server refuses everything else in the transaction: the write is the news.
      throw toStoreError(this.failure ?? error);
    });
  }

  send(text: string, values: unknown[] = []): void {
    if (this.inserts.add(text, values)) return;
    this.flushInserts();
    this.dispatch(statement(text, values));
  }

  sendThen(text: string, values: unknown[], use: (rows: Row[]) => void): void {
    this.flushInserts();
    this.dispatch(statement(text, values), use);
  }

  /** Waits until every write sent so far is answered; throws the first that failed. */
  async settle(): Promise<void> {
    this.flushInserts();
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    if (this.failure !== undefined) throw toStoreError(this.failure);
  }

  /** After ROLLBACK TO SAVEPOINT: the writes that failed are undone, and the transaction goes on. */
  forgetFailure(): void {
    this.failure = undefined;
  }

  /** Sends the inserts held back, merged into one statement. */
  private flushInserts(): void {
    const merged = this.inserts.take();
    if (merged) this.dispatch(merged);
  }

  private dispatch(config: pg.QueryConfig, use?: (rows: Row[]) => void): void {
    this.batch();
    this.pending.push(
      // The failure is noted in the rejection's first handler: a read sent after this write fails
      // too, and must find the write's failure noted by then (`query`).
      this.client.query(config).then(
        (result) => {
          try {
            use?.(result.rows as Row[]);
          } catch (error) {
            this.failure ??= error;
          }
        },
        (error: unknown) => {
          this.failure ??= error;
        },
      ),
    );
  }

  /** Holds the socket's writes until the end of this event-loop turn, so they leave together. */
  private batch(): void {
    if (this.corked) return;
    const stream = (this.client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
    if (typeof stream?.cork !== 'function' || typeof stream.uncork !== 'function') return;
    stream.cork();
    this.corked = true;
    process.nextTick(() => {
      this.corked = false;
      stream.uncork!();
    });
  }
}
