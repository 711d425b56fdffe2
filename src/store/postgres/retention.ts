import { emptyCounts, type PruneCounts, type RetentionCutoffs } from '../retention.js';
import type { RetentionRepository } from '../store.js';
import { all, type Db, one, run } from './sql.js';
import { FINAL_LIST, OPEN_LIST } from '../shared/rules-sql.js';

/** Row sets below take the placeholder their cutoff goes in (`$1`, `$2`…), as it falls in each statement. */
type Rows = (before: string) => string;

/**
 * The row's request is not open (or is gone): asked per row, on the request's primary key. As a
 * NOT EXISTS the planner may turn it into an anti join walking every request for the first open one
 * (204 ms a batch at 100,000 requests when the batch is small).
 */
const NOT_OPEN = (table: string) => `(SELECT r.status IN ${OPEN_LIST} FROM requests r WHERE r.id = ${table}.request_id) IS NOT TRUE`;

const OUTBOX_ROWS = {
  deliveries: (before) => `FROM deliveries WHERE state = 'delivered' AND delivered_at < ${before}`,
  messages: (before) => `FROM messages WHERE state = 'sent' AND sent_at < ${before}
    AND ${NOT_OPEN('messages')}`,
  events: (before) => `FROM events WHERE created_at < ${before} AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)
    AND ${NOT_OPEN('events')}`,
  chat_events: (before) => `FROM chat_events WHERE at < ${before}`,
  llm_jobs: (before) => `FROM llm_jobs WHERE state <> 'pending' AND finished_at < ${before}`,
} as const satisfies Record<string, Rows>;

const OLD_REQUESTS: Rows = (before) => `FROM requests WHERE status IN ${FINAL_LIST} AND updated_at < ${before}
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.request_id = requests.id AND d.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.request_id = requests.id AND m.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM llm_jobs j WHERE j.request_id = requests.id AND j.state = 'pending')`;

/** Events a run would remove: including those whose every delivery goes in the same run. */
const EVENTS_AFTER_DELIVERIES: Rows = (before) => `FROM events WHERE created_at < ${before}
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND NOT (d.state = 'delivered' AND d.delivered_at < ${before}))
  AND ${NOT_OPEN('events')}`;

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
    return (await all(this.db, `SELECT id ${OLD_REQUESTS('$1')} ORDER BY updated_at LIMIT $2`, [before, limit])).map((r) => r.id as string);
  }

  async pruneBatch(cutoffs: RetentionCutoffs, limit: number, picked: string[]): Promise<PruneCounts> {
    return pruneBatch(this.db, this.locking, cutoffs, limit, picked);
  }
}

/**
 * Counts what a prune at these cutoffs would remove (`expertq prune --dry-run`): the outbox rows past
 * `retention`, and every row of the finished requests past `retention_requests` (their deliveries,
 * events, messages and LLM jobs too, whatever their age), each row once.
 */
async function countPrunable(db: Db, cutoffs: RetentionCutoffs): Promise<PruneCounts> {
  const counts = emptyCounts();
  const n = async (sql: string, values: unknown[]) => (await one(db, `SELECT count(*) AS n ${sql}`, values))!.n as number;
  for (const [kind, outboxRows] of Object.entries(OUTBOX_ROWS)) {
    // The outbox cutoff is $1 when given; the requests cutoff follows it.
    const values = [cutoffs.outboxBefore, ...(kind !== 'chat_events' ? [cutoffs.requestsBefore] : [])].filter((v) => v !== null);
    const [from, where] = (kind === 'events' ? EVENTS_AFTER_DELIVERIES : outboxRows)('$1').split(/ WHERE (.*)/s) as [string, string];
    const oldIds = `SELECT id ${OLD_REQUESTS(`$${cutoffs.outboxBefore !== null ? 2 : 1}`)}`;
    const conditions = [
      ...(cutoffs.outboxBefore !== null ? [`(${where})`] : []),
      ...(cutoffs.requestsBefore !== null && kind !== 'chat_events' ? [`request_id IN (${oldIds})`] : []),
    ];
    if (conditions.length > 0) counts[kind as keyof typeof OUTBOX_ROWS] = await n(`${from} WHERE ${conditions.join(' OR ')}`, values);
  }
  if (cutoffs.requestsBefore !== null) {
    const values = [cutoffs.requestsBefore];
    const oldIds = `SELECT id ${OLD_REQUESTS('$1')}`;
    counts.requests = await n(OLD_REQUESTS('$1'), values);
    counts.proposals = await n(`FROM proposals WHERE request_id IN (${oldIds})`, values);
    counts.audit = await n(`FROM audit WHERE request_id IN (${oldIds})`, values);
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
    for (const [kind, rows] of Object.entries(OUTBOX_ROWS)) {
      const table = kind as keyof typeof OUTBOX_ROWS;
      counts[table] += await run(db, `DELETE FROM ${table} WHERE id IN (SELECT id ${rows('$1')} LIMIT $2)`, [cutoffs.outboxBefore, limit]);
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
  const inList = `= ANY($1::text[])`;
  const del = (sql: string) => run(db, sql, [ids]);
  await del(`DELETE FROM chat_asks WHERE ask_id IN (SELECT id FROM asks WHERE request_id ${inList})`);
  await del(`DELETE FROM review_cards WHERE proposal_id IN (SELECT id FROM proposals WHERE request_id ${inList})`);
  await del(`DELETE FROM request_subscribers WHERE request_id ${inList}`);
  await del(`DELETE FROM asks WHERE request_id ${inList}`);
  counts.proposals += await del(`DELETE FROM proposals WHERE request_id ${inList}`);
  counts.audit += await del(`DELETE FROM audit WHERE request_id ${inList}`);
  counts.deliveries += await del(`DELETE FROM deliveries WHERE request_id ${inList}`);
  counts.events += await del(`DELETE FROM events WHERE request_id ${inList}`);
  counts.messages += await del(`DELETE FROM messages WHERE request_id ${inList}`);
  counts.llm_jobs += await del(`DELETE FROM llm_jobs WHERE request_id ${inList}`);
  counts.requests += await del(`DELETE FROM requests WHERE id ${inList}`);
}
