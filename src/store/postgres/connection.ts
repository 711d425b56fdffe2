import type pg from 'pg';
import type { Db } from './sql.js';
import { toStoreError } from './storage-errors.js';

/**
 * Statements get a name (and so are parsed and planned once per connection) unless they return whole
 * rows (`*`): a migration that adds a column would make such a prepared statement fail with "cached
 * plan must not change result type" in an instance started before it. The names are per process.
 */
const names = new Map<string, string>();
/** Beyond this many distinct texts, new ones run unnamed, so the server keeps a bounded set per connection. */
const MAX_NAMES = 500;
const WHOLE_ROWS = /(?:SELECT|RETURNING|,)\s+(?:\w+\.)?\*/i;

export function statement(text: string, values: unknown[] | undefined): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES && !WHOLE_ROWS.test(text)) {
    name = `expertq_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

/** The pool, for reads outside transactions (each autocommitted): errors arrive translated. */
export function poolDb(pool: pg.Pool): Db {
  return {
    query: (text, values) =>
      pool.query(statement(text, values)).catch((error: unknown) => {
        throw toStoreError(error);
      }),
  };
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

  constructor(private readonly client: pg.PoolClient) {}

  query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    this.batch();
    return this.client.query(statement(text, values)).catch((error: unknown) => {
      // After a failed write the server refuses everything else in the transaction: the write is the news.
      throw toStoreError(this.failure ?? error);
    });
  }

  send(text: string, values?: unknown[]): void {
    this.batch();
    this.pending.push(
      this.client.query(statement(text, values)).catch((error: unknown) => {
        this.failure ??= error;
      }),
    );
  }

  /** Waits until every write sent so far is answered; throws the first that failed. */
  async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    if (this.failure !== undefined) throw toStoreError(this.failure);
  }

  /** After ROLLBACK TO SAVEPOINT: the writes that failed are undone, and the transaction goes on. */
  forgetFailure(): void {
    this.failure = undefined;
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
