import { StorageUnavailable } from '../../store/errors.js';
import type { DueCursor, Reads, Tx } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import { guarded } from '../routing/index.js';

/** One kind of due work: how to find it, page through it, do it and count it. */
export interface Drain<T, R> {
  budget: number;
  now: number;
  /** Experts released by committed work, for the waiting-work pass at the end of the tick. */
  freed: Set<string>;
  due: (reads: Reads, after: DueCursor | null, limit: number) => Promise<T[]>;
  cursorOf: (row: T) => DueCursor;
  requestOf: (row: T) => string;
  work: (tx: Tx, row: T, freed: Set<string>) => Promise<R>;
  done: (result: R) => void;
}

/**
 * Handles due rows in keyset order, `batchSize` per transaction, until none are due or `budget` is
 * spent; returns how many it handled. Keyset paging (never "the first N again") means a row that fails
 * is not retried in a loop. Counts and released experts are taken only from committed batches.
 */
export async function drainDue<T, R>(engine: Pick<Engine, 'store' | 'log' | 'clock' | 'threadedTransport'>, batchSize: number, d: Drain<T, R>): Promise<number> {
  let handled = 0;
  let after: DueCursor | null = null;
  if ((await d.due(engine.store, null, 1)).length === 0) return 0;
  while (handled < d.budget) {
    const limit = Math.min(batchSize, d.budget - handled);
    const cursor = after;
    const batch = await runBatch(engine, d, (tx) => d.due(tx, cursor, limit));
    for (const r of batch.results) d.done(r);
    for (const id of batch.freed) d.freed.add(id);
    handled += batch.rows.length;
    if (batch.rows.length < limit) break;
    after = d.cursorOf(batch.rows[batch.rows.length - 1]!);
  }
  return handled;
}

/**
 * One batch in one transaction, without a savepoint per row: savepoints cost about a fifth of the
 * work. If any row throws, the whole batch is rolled back and redone row by row, each in its own
 * savepoint (`guarded`), so only the broken row fails, with reason `error`.
 */
async function runBatch<T, R>(engine: Pick<Engine, 'store' | 'log' | 'clock' | 'threadedTransport'>, d: Drain<T, R>, load: (tx: Tx) => Promise<T[]>): Promise<{ rows: T[]; results: R[]; freed: Set<string> }> {
  const store = engine.store;
  try {
    return await store.transaction(async (tx) => {
      const rows = await load(tx);
      const freed = new Set<string>();
      const results: R[] = [];
      for (const row of rows) results.push(await d.work(tx, row, freed));
      return { rows, results, freed };
    });
  } catch (error) {
    // The storage failed, not a row: no row is to blame (or to be failed for it). The tick fails and
    // the same work is due again on the next one.
    if (error instanceof StorageUnavailable) throw error;
    engine.log.warn({ err: error }, 'a batch of due work failed; redoing it one request at a time');
    return store.transaction(async (tx) => {
      const rows = await load(tx);
      const freed = new Set<string>();
      const results: R[] = [];
      for (const row of rows) {
        const rowFreed = new Set<string>();
        let value: R | undefined;
        const ok = await guarded(engine, tx, d.requestOf(row), d.now, async (inner) => {
          value = await d.work(inner, row, rowFreed);
        }, freed);
        if (ok) {
          results.push(value as R);
          for (const id of rowFreed) freed.add(id);
        }
      }
      return { rows, results, freed };
    });
  }
}
