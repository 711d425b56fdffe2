import pg from 'pg';
import type { Row } from '../row-records.js';

/** A pool (autocommitted reads) or one pooled connection inside a transaction: both run queries. */
export interface Db {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Inside a transaction: sends a write without waiting for it (see `TxConnection`). */
  send?(text: string, values?: unknown[]): void;
  /**
   * Inside a transaction: sends a statement without waiting for it, like `send`, and hands its rows to
   * `use` when they come. If it fails, the transaction fails as with `send`.
   */
  sendThen?(text: string, values: unknown[], use: (rows: Row[]) => void): void;
  /**
   * The pool: runs `work`'s reads on one connection, in a read-only transaction with parallel plans
   * off, for reads of a few thousand rows by key that the planner would start workers for anyway.
   */
  readSerially?<T>(work: (db: Db) => Promise<T>): Promise<T>;
}

export async function all(db: Db, text: string, values: unknown[] = []): Promise<Row[]> {
  return (await db.query(text, values)).rows as Row[];
}

export async function one(db: Db, text: string, values: unknown[] = []): Promise<Row | undefined> {
  return (await db.query(text, values)).rows[0] as Row | undefined;
}

/** Runs a write; resolves with the number of rows it touched. */
export async function run(db: Db, text: string, values: unknown[] = []): Promise<number> {
  return (await db.query(text, values)).rowCount ?? 0;
}

/**
 * Runs a write whose result the caller does not need. Inside a transaction it is pipelined: it costs
 * no round trip of its own, and if it fails, the transaction fails at its next read or at commit.
 */
export async function write(db: Db, text: string, values: unknown[] = []): Promise<void> {
  if (db.send) db.send(text, values);
  else await db.query(text, values);
}

/** The ids of an array in `?` (a shared text's placeholder: `pgText` numbers it). */
export const PG_IN_ARRAY = '= ANY(?::text[])';

/**
 * `WHERE a = $1 AND b = $2` from the filters whose value is given, numbering from `first`. Each
 * clause carries one `$?` where its value goes.
 */
export function whereClause(filters: Array<[clause: string, value: unknown]>, first = 1): { where: string; values: unknown[] } {
  const given = filters.filter(([, value]) => value !== undefined);
  let n = first;
  return {
    where: given.length ? `WHERE ${given.map(([c]) => c.replace('$?', () => `$${n++}`)).join(' AND ')}` : '',
    values: given.map(([, v]) => v),
  };
}

/**
 * Types as the repositories expect them: BIGINT (epoch milliseconds, counts) and NUMERIC (sums) as
 * JavaScript numbers, not strings. Every value expertq keeps in them is far below 2^53.
 */
export const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};
