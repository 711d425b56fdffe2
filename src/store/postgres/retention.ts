import { emptyCounts, type PruneCounts, type RetentionCutoffs } from '../retention.js';
import type { RetentionRepository } from '../store.js';
import { all, type Db, one, run } from './sql.js';
import { OPEN_LIST } from '../shared/rules-sql.js';
import { pgNamed } from '../shared/placeholders.js';
import { countStatements, deleteBatch, OLD_REQUEST, type NotOpen, type OutboxKind, outboxRows, pickOldest, requestDeletes, type Rows } from '../shared/retention-sql.js';

/**
 * The row's request is not open (or is gone): asked per row, on the request's primary key. As a
 * NOT EXISTS the planner may turn it into an anti join walking every request for the first open one
 * (204 ms a batch at 100,000 requests when the batch is small).
 */
const NOT_OPEN: NotOpen = (table) => `(SELECT r.status IN ${OPEN_LIST} FROM requests r WHERE r.id = ${table}.request_id) IS NOT TRUE`;

const OUTBOX_ROWS = outboxRows(NOT_OPEN);

const OLD_REQUESTS: Rows = (before) => `FROM requests WHERE ${OLD_REQUEST(before)}`;

const REQUEST_DELETES = requestDeletes('= ANY($1::text[])');

/** Retention in PostgreSQL: what may go, counted, and removed in batches (each in its caller's transaction). */
export class PgRetention implements RetentionRepository {
  // Fixed costs (the pick and a dozen statements, a round trip each) take about 15 ms a batch.
  readonly batchMs = 100;
  constructor(
    private readonly db: Db,
    private readonly locking: boolean,
  ) {}

  async countPrunable(cutoffs: RetentionCutoffs): Promise<PruneCounts> {
    return countPrunable(this.db, cutoffs);
  }

  async pickRequests(before: number, limit: number): Promise<string[]> {
    // Oldest first, in the order of `requests_finished` (updated_at, finished only), whose condition the
    // selection repeats: the batch is the first rows of that range, not a pass over every finished request.
    return (await all(this.db, pickOldest(OLD_REQUESTS('$1'), '$2'), [before, limit])).map((r) => r.id as string);
  }

  async pruneBatch(cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts> {
    return pruneBatch(this.db, this.locking, cutoffs, limit, picked);
  }
}

/** Counts what a prune at these cutoffs would remove (`expertq prune --dry-run`): see `countStatements`. */
async function countPrunable(db: Db, cutoffs: RetentionCutoffs): Promise<PruneCounts> {
  const counts = emptyCounts();
  const named = { outbox: cutoffs.outboxBefore, requests: cutoffs.requestsBefore };
  for (const [kind, sql] of countStatements(cutoffs, NOT_OPEN, OLD_REQUESTS)) {
    const { text, values } = pgNamed(sql, named);
    counts[kind] = (await one(db, text, values))!.n as number;
  }
  return counts;
}

/**
 * Removes at most `limit` rows of each kind (and at most `limit` requests with what belongs to them),
 * in the caller's transaction. Returns what went; all zero means nothing is left to prune.
 */
async function pruneBatch(db: Db, locking: boolean, cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts> {
  const counts = emptyCounts();
  if (cutoffs.requestsBefore !== null && picked.length > 0) await pruneRequests(db, locking, cutoffs.requestsBefore, picked, counts);
  if (cutoffs.outboxBefore !== null) {
    // Deliveries before events: an event goes once no delivery needs its body.
    for (const [table, rows] of Object.entries(OUTBOX_ROWS) as Array<[OutboxKind, Rows]>) {
      counts[table] += await run(db, deleteBatch(table, rows('$1'), '$2'), [cutoffs.outboxBefore, limit]);
    }
  }
  return counts;
}

async function pruneRequests(db: Db, locking: boolean, before: number, picked: string[], counts: PruneCounts): Promise<void> {
  // Checked again, locked, and those another transaction holds skipped: a request that gained pending
  // work since it was picked, or gains it meanwhile (its writer locks it first), is not removed.
  const lock = locking ? ' FOR UPDATE SKIP LOCKED' : '';
  const ids = (await all(db, `SELECT id ${OLD_REQUESTS('$1')} AND id = ANY($2::text[])${lock}`, [before, picked])).map((r) => r.id as string);
  if (ids.length === 0) return;
  for (const [sql, counted] of REQUEST_DELETES) {
    const removed = await run(db, sql, [ids]);
    if (counted !== null) counts[counted] += removed;
  }
}
