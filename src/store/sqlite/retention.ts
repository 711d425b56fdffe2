import type Database from 'better-sqlite3';
import { emptyCounts, type PruneCounts, type RetentionCutoffs } from '../retention.js';
import type { RetentionRepository } from '../store.js';
import { statementCache } from './rows.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';
import { OPEN_LIST } from '../shared/rules-sql.js';
import { countStatements, deleteBatch, OLD_REQUEST, type NotOpen, type OutboxKind, outboxRows, pickOldest, requestDeletes, type Rows } from '../shared/retention-sql.js';

type Prepare = (sql: string) => Database.Statement;

/** The row's request is not open (or is gone). */
const NOT_OPEN: NotOpen = (table) => `NOT EXISTS (SELECT 1 FROM requests r WHERE r.id = ${table}.request_id AND r.status IN ${OPEN_LIST})`;

const OUTBOX_ROWS = outboxRows(NOT_OPEN);

/**
 * Pinned to `requests_finished` (updated_at, finished only), whose condition it repeats: on its own
 * SQLite picks `requests_status` and reads every finished request of three years to find those past
 * the cutoff (259 ms a batch at a million requests, against 0.1 ms).
 */
const OLD_REQUESTS: Rows = (before) => `FROM requests INDEXED BY requests_finished WHERE ${OLD_REQUEST(before)}`;

/**
 * The picked requests (a JSON array in `@picked`) still past the cutoff, each read by its key (the
 * primary key's index, pinned: on its own SQLite looks each up under every finished status of
 * `requests_status`); then removed with what is theirs (a JSON array in `@list`).
 */
const RECHECK = `SELECT id FROM requests INDEXED BY sqlite_autoindex_requests_1 WHERE id IN (SELECT value FROM json_each(@picked)) AND ${OLD_REQUEST('@before')}`;
const REQUEST_DELETES = requestDeletes('IN (SELECT value FROM json_each(@list))');

/** Retention in SQLite: what may go, counted, and removed in batches (each in its caller's transaction). */
export class SqliteRetention implements RetentionRepository {
  /**
   * Most of a batch is writing the pages it changed to the WAL, and the next batch changes many of the
   * same pages (their rows sit side by side, oldest first): longer batches write each page fewer times.
   * With checkpoints off the event loop (background-checkpoint.ts), 25 ms batches pruned the 100,000
   * history in 25-28 s with `GET /requests/{id}` p99 22-24 ms meanwhile, against 39-41 s and 26-30 ms
   * for 10 ms batches that also checkpointed.
   */
  readonly batchMs = 25;
  private readonly prepare: Prepare;
  private readonly slow: SlowReads;

  /** `slow`: where a batch is picked (on the reading thread when there is one); null: on `db`. */
  constructor(db: Database.Database, slow: SlowReads | null = null) {
    this.prepare = statementCache(db);
    this.slow = slow ?? mainThreadReads(db);
  }

  async pickRequests(before: number, limit: number): Promise<string[]> {
    // Oldest first, in the index's own order: the batch is the first rows of the range, not a sort of it.
    const rows = await this.slow.all(pickOldest(OLD_REQUESTS('@before'), '@limit'), { before, limit });
    return rows.map((r) => r.id as string);
  }

  async countPrunable(cutoffs: RetentionCutoffs): Promise<PruneCounts> {
    return countPrunable(this.prepare, cutoffs);
  }

  async pruneBatch(cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts> {
    return pruneBatch(this.prepare, cutoffs, limit, picked);
  }
}

/** Counts what a prune at these cutoffs would remove (`expertq prune --dry-run`): see `countStatements`. */
function countPrunable(prepare: Prepare, cutoffs: RetentionCutoffs): PruneCounts {
  const counts = emptyCounts();
  const params = { outbox: cutoffs.outboxBefore, requests: cutoffs.requestsBefore };
  for (const [kind, sql] of countStatements(cutoffs, NOT_OPEN, OLD_REQUESTS)) {
    counts[kind] = (prepare(sql).get(params) as { n: number }).n;
  }
  return counts;
}

/**
 * Removes at most `limit` rows of each kind (and the `picked` requests that still may go, with what
 * belongs to them), in the caller's transaction. Returns what went; all zero means nothing is left.
 */
function pruneBatch(prepare: Prepare, cutoffs: RetentionCutoffs, limit: number, picked: string[]): PruneCounts {
  const counts = emptyCounts();
  if (cutoffs.requestsBefore !== null && picked.length > 0) pruneRequests(prepare, cutoffs.requestsBefore, picked, counts);
  if (cutoffs.outboxBefore !== null) {
    // Deliveries before events: an event goes once no delivery needs its body.
    for (const [table, rows] of Object.entries(OUTBOX_ROWS) as Array<[OutboxKind, Rows]>) {
      counts[table] += prepare(deleteBatch(table, rows('@before'), '@limit')).run({ before: cutoffs.outboxBefore, limit }).changes;
    }
  }
  return counts;
}

function pruneRequests(prepare: Prepare, before: number, picked: string[], counts: PruneCounts): void {
  // Picked from the last commit, outside this transaction: those that gained pending work since (a
  // delivery retried, in this very commit perhaps) stay.
  const ids = (prepare(RECHECK).all({ picked: JSON.stringify(picked), before }) as Array<{ id: string }>).map((r) => r.id);
  if (ids.length === 0) return;
  const list = JSON.stringify(ids);
  for (const [sql, counted] of REQUEST_DELETES) {
    const removed = prepare(sql).run({ list }).changes;
    if (counted !== null) counts[counted] += removed;
  }
}

