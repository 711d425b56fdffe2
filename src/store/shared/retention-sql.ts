import type { PruneCounts, RetentionCutoffs } from '../retention.js';
import { FINAL_LIST } from './rules-sql.js';

/**
 * Retention's statements, written once. Each engine names its values its own way (SQLite `@before`,
 * PostgreSQL `$1`) and passes a list of ids its own way, so each text here takes the placeholder, or
 * the list test, it is to hold. Two parts are each engine's own: whether a row's request is still open
 * (`NotOpen`: PostgreSQL asks it per row, where a NOT EXISTS may become an anti join over every
 * request) and the finished requests past a cutoff (SQLite pins their index with INDEXED BY).
 */

/** Rows given the placeholder their cutoff goes in, as it falls in each statement. */
export type Rows = (before: string) => string;

/** The engine's condition that the request of a row of `table` is not open (or is gone). */
export type NotOpen = (table: string) => string;

/**
 * The kinds of outbox rows, in the order a batch removes them (deliveries before events: an event goes
 * once no delivery needs its body).
 */
export type OutboxKind = 'deliveries' | 'messages' | 'events' | 'chat_events' | 'llm_jobs';

/** The outbox rows past the cutoff, of each kind. */
export const outboxRows = (notOpen: NotOpen): Record<OutboxKind, Rows> => ({
  deliveries: (before) => `FROM deliveries WHERE state = 'delivered' AND delivered_at < ${before}`,
  messages: (before) => `FROM messages WHERE state = 'sent' AND sent_at < ${before} AND ${notOpen('messages')}`,
  events: (before) => `FROM events WHERE created_at < ${before} AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)
    AND ${notOpen('events')}`,
  chat_events: (before) => `FROM chat_events WHERE at < ${before}`,
  llm_jobs: (before) => `FROM llm_jobs WHERE state <> 'pending' AND finished_at < ${before}`,
});

/** Events a run would remove: including those whose every delivery goes in the same run. */
const eventsAfterDeliveries = (notOpen: NotOpen): Rows => (before) => `FROM events WHERE created_at < ${before}
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND NOT (d.state = 'delivered' AND d.delivered_at < ${before}))
  AND ${notOpen('events')}`;

/** A finished request past the cutoff with no work pending: it may go, with all that is its. */
export const OLD_REQUEST: Rows = (before) => `status IN ${FINAL_LIST} AND updated_at < ${before}
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.request_id = requests.id AND d.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.request_id = requests.id AND m.state = 'pending')
  AND NOT EXISTS (SELECT 1 FROM llm_jobs j WHERE j.request_id = requests.id AND j.state = 'pending')`;

/** The first `limit` (its placeholder) of the finished requests `oldRequests` may remove, oldest first. */
export const pickOldest = (oldRequests: string, limit: string) => `SELECT id ${oldRequests} ORDER BY updated_at LIMIT ${limit}`;

/** Removes the outbox rows `rows` of `table`, at most a batch of them (`limit`: its placeholder). */
export const deleteBatch = (table: string, rows: string, limit: string) => `DELETE FROM ${table} WHERE id IN (SELECT id ${rows} LIMIT ${limit})`;

/**
 * The statements removing the requests whose id passes `inList` (`IN …` in SQLite, `= ANY(…)` in
 * PostgreSQL) with all that belongs to them, what refers to a row before the row; each with the count
 * its removed rows add to (null: none).
 */
export function requestDeletes(inList: string): Array<[sql: string, counted: keyof PruneCounts | null]> {
  return [
    [`DELETE FROM chat_asks WHERE ask_id IN (SELECT id FROM asks WHERE request_id ${inList})`, null],
    [`DELETE FROM review_cards WHERE proposal_id IN (SELECT id FROM proposals WHERE request_id ${inList})`, null],
    [`DELETE FROM votes WHERE proposal_id IN (SELECT id FROM proposals WHERE request_id ${inList})`, null],
    [`DELETE FROM request_subscribers WHERE request_id ${inList}`, null],
    [`DELETE FROM asks WHERE request_id ${inList}`, null],
    [`DELETE FROM proposals WHERE request_id ${inList}`, 'proposals'],
    [`DELETE FROM audit WHERE request_id ${inList}`, 'audit'],
    [`DELETE FROM deliveries WHERE request_id ${inList}`, 'deliveries'],
    [`DELETE FROM events WHERE request_id ${inList}`, 'events'],
    [`DELETE FROM messages WHERE request_id ${inList}`, 'messages'],
    [`DELETE FROM llm_jobs WHERE request_id ${inList}`, 'llm_jobs'],
    [`DELETE FROM requests WHERE id ${inList}`, 'requests'],
  ];
}

/**
 * What a prune at these cutoffs would remove (`expertq prune --dry-run`), a count statement for each
 * kind of row: the outbox rows past `@outbox` (`events`: counting those whose deliveries go in the same
 * run), and every row of the finished requests past `@requests` (their deliveries, events, messages and
 * LLM jobs too, whatever their age), each row once. `notOpen` and `oldRequests` are the engine's own.
 */
export function countStatements(cutoffs: RetentionCutoffs, notOpen: NotOpen, oldRequests: Rows): Array<[counted: keyof PruneCounts, sql: string]> {
  const statements: Array<[keyof PruneCounts, string]> = [];
  const oldIds = `SELECT id ${oldRequests('@requests')}`;
  for (const [kind, rows] of Object.entries(outboxRows(notOpen)) as Array<[OutboxKind, Rows]>) {
    const [from, where] = (kind === 'events' ? eventsAfterDeliveries(notOpen) : rows)('@outbox').split(/ WHERE (.*)/s) as [string, string];
    const conditions = [
      ...(cutoffs.outboxBefore !== null ? [`(${where})`] : []),
      ...(cutoffs.requestsBefore !== null && kind !== 'chat_events' ? [`request_id IN (${oldIds})`] : []),
    ];
    if (conditions.length > 0) statements.push([kind, `SELECT count(*) AS n ${from} WHERE ${conditions.join(' OR ')}`]);
  }
  if (cutoffs.requestsBefore !== null) {
    statements.push(
      ['requests', `SELECT count(*) AS n ${oldRequests('@requests')}`],
      ['proposals', `SELECT count(*) AS n FROM proposals WHERE request_id IN (${oldIds})`],
      ['audit', `SELECT count(*) AS n FROM audit WHERE request_id IN (${oldIds})`],
    );
  }
  return statements;
}
