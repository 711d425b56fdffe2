import type Database from 'better-sqlite3';
import { emptyCounts, type PruneCounts, type RetentionCutoffs } from '../retention.js';
import type { RetentionRepository } from '../store.js';
import { statementCache } from './rows.js';
import { mainThreadReads, type SlowReads } from './worker-reader.js';
import { FINAL_LIST, OPEN_LIST } from '../shared/rules-sql.js';

type Prepare = (sql: string) => Database.Statement;


const OUTBOX_ROWS = {
  deliveries: `FROM deliveries WHERE state = 'delivered' AND delivered_at < @before`,
  messages: `FROM messages WHERE state = 'sent' AND sent_at < @before
    AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.id = messages.request_id AND r.status IN ${OPEN_LIST})`,
  events: `FROM events WHERE created_at < @before AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)
    AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.id = events.request_id AND r.status IN ${OPEN_LIST})`,
  chat_events: `FROM chat_events WHERE at < @before`,
  llm_jobs: `FROM llm_jobs WHERE state <> 'pending' AND finished_at < @before`,
} as const;

/** A finished request past the cutoff with no work pending: it may go, with all that is its. */
const OLD_REQUEST = `status IN ${FINAL_LIST} AND updated_at < @before
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.request_id = requests.id AND d.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.request_id = requests.id AND m.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM llm_jobs j WHERE j.request_id = requests.id AND j.state = 'pending')`;

/**
 * Pinned to `requests_finished` (updated_at, finished only), whose condition it repeats: on its own
 * SQLite picks `requests_status` and reads every finished request of three years to find those past
 * the cutoff (259 ms a batch at a million requests, against 0.1 ms).
 */
const OLD_REQUESTS = `FROM requests INDEXED BY requests_finished WHERE ${OLD_REQUEST}`;

/** Events a run would remove: including those whose every delivery goes in the same run. */
const EVENTS_AFTER_DELIVERIES = `FROM events WHERE created_at < @before
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND NOT (d.state = 'delivered' AND d.delivered_at < @before))
  AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.id = events.request_id AND r.status IN ${OPEN_LIST})`;

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
    const rows = await this.slow.all(`SELECT id ${OLD_REQUESTS} ORDER BY updated_at LIMIT @limit`, { before, limit });
    return rows.map((r) => r.id as string);
  }

  async countPrunable(cutoffs: RetentionCutoffs): Promise<PruneCounts> {
    return countPrunable(this.prepare, cutoffs);
  }

  async pruneBatch(cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts> {
    return pruneBatch(this.prepare, cutoffs, limit, picked);
  }
}

/**
 * Counts what a prune at these cutoffs would remove (`expertq prune --dry-run`): the outbox rows past
 * `retention`, and every row of the finished requests past `retention_requests` (their deliveries,
 * events, messages and LLM jobs too, whatever their age), each row once.
 */
function countPrunable(prepare: Prepare, cutoffs: RetentionCutoffs): PruneCounts {
  const counts = emptyCounts();
  const params = { outbox: cutoffs.outboxBefore, requests: cutoffs.requestsBefore };
  const n = (sql: string) => (prepare(sql).get(params) as { n: number }).n;
  const oldIds = `SELECT id ${OLD_REQUESTS.replaceAll('@before', '@requests')}`;
  for (const [kind, outboxRows] of Object.entries(OUTBOX_ROWS)) {
    const rows = (kind === 'events' ? EVENTS_AFTER_DELIVERIES : outboxRows).replaceAll('@before', '@outbox');
    const [from, where] = rows.split(/ WHERE (.*)/s) as [string, string];
    const conditions = [
      ...(cutoffs.outboxBefore !== null ? [`(${where})`] : []),
      ...(cutoffs.requestsBefore !== null && kind !== 'chat_events' ? [`request_id IN (${oldIds})`] : []),
    ];
    if (conditions.length > 0) counts[kind as keyof typeof OUTBOX_ROWS] = n(`SELECT count(*) AS n ${from} WHERE ${conditions.join(' OR ')}`);
  }
  if (cutoffs.requestsBefore !== null) {
    counts.requests = n(`SELECT count(*) AS n ${OLD_REQUESTS.replaceAll('@before', '@requests')}`);
    counts.proposals = n(`SELECT count(*) AS n FROM proposals WHERE request_id IN (${oldIds})`);
    counts.audit = n(`SELECT count(*) AS n FROM audit WHERE request_id IN (${oldIds})`);
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
    for (const [kind, rows] of Object.entries(OUTBOX_ROWS)) {
      const table = kind as keyof typeof OUTBOX_ROWS;
      const sql = `DELETE FROM ${table} WHERE id IN (SELECT id ${rows} LIMIT @limit)`;
      counts[table] += prepare(sql).run({ before: cutoffs.outboxBefore, limit }).changes;
    }
  }
  return counts;
}

function pruneRequests(prepare: Prepare, before: number, picked: string[], counts: PruneCounts): void {
  // Picked from the last commit, outside this transaction: those that gained pending work since (a
  // delivery retried, in this very commit perhaps) stay. Each is checked by its key (the primary key's
  // index, pinned: on its own SQLite looks each up under every finished status of `requests_status`).
  const recheck = `SELECT id FROM requests INDEXED BY sqlite_autoindex_requests_1 WHERE id IN (SELECT value FROM json_each(@picked)) AND ${OLD_REQUEST}`;
  const ids = (prepare(recheck).all({ picked: JSON.stringify(picked), before }) as Array<{ id: string }>).map((r) => r.id);
  if (ids.length === 0) return;
  const list = JSON.stringify(ids);
  const inList = `IN (SELECT value FROM json_each(@list))`;
  const run = (sql: string) => prepare(sql).run({ list }).changes;
  run(`DELETE FROM chat_asks WHERE ask_id IN (SELECT id FROM asks WHERE request_id ${inList})`);
  run(`DELETE FROM review_cards WHERE proposal_id IN (SELECT id FROM proposals WHERE request_id ${inList})`);
  run(`DELETE FROM request_subscribers WHERE request_id ${inList}`);
  run(`DELETE FROM asks WHERE request_id ${inList}`);
  counts.proposals += run(`DELETE FROM proposals WHERE request_id ${inList}`);
  counts.audit += run(`DELETE FROM audit WHERE request_id ${inList}`);
  counts.deliveries += run(`DELETE FROM deliveries WHERE request_id ${inList}`);
  counts.events += run(`DELETE FROM events WHERE request_id ${inList}`);
  counts.messages += run(`DELETE FROM messages WHERE request_id ${inList}`);
  counts.llm_jobs += run(`DELETE FROM llm_jobs WHERE request_id ${inList}`);
  counts.requests += run(`DELETE FROM requests WHERE id ${inList}`);
}

