import type { AuditEntry, RequestRecord } from '../../domain/records.js';
import { json } from '../row-records.js';

/**
 * The statements of requests and their audit trail the same in both engines (`?` placeholders:
 * `pgText`). The scheduler's due-work reads differ (SQLite pins their index with INDEXED BY), as do
 * lists of ids, subscribers, summaries (JSON functions) and PostgreSQL's locks and search words.
 */
export const REQUESTS = {
  get: 'SELECT * FROM requests WHERE id = ?',
  findByDedupKey: 'SELECT * FROM requests WHERE dedup_key = ? AND created_at >= ? ORDER BY created_at DESC, id DESC LIMIT 1',
  countSubmittedSince: 'SELECT COUNT(*) AS n FROM requests WHERE consumer_id = ? AND created_at >= ?',
  appendAudit: 'INSERT INTO audit (request_id, at, type, actor, data) VALUES (?, ?, ?, ?, ?)',
  audit: 'SELECT * FROM audit WHERE request_id = ? ORDER BY seq',
  // The condition of the partial index `requests_held`, word for word.
  held: `SELECT id, topic, target_experts, created_at FROM requests r WHERE held = 1
      AND NOT EXISTS (SELECT 1 FROM asks a WHERE a.request_id = r.id AND a.state IN ('queued', 'open'))
      ORDER BY created_at, id`,
} as const;

/**
 * The columns a request is inserted with in both engines (PostgreSQL adds its search words), and a `?`
 * for each: `requestValues` gives their values in this order.
 */
export const REQUEST_COLUMNS = `id, consumer_id, kind, topic, question, context, target_experts,
    routing_policy, dedup_key, status, reason_code, reason_message, proposal_id, held, give_up_at, created_at, updated_at,
    drafting, asked_question, own_policy, warn_at, refreshes`;
export const REQUEST_PLACEHOLDERS = REQUEST_COLUMNS.split(',').map(() => '?').join(', ');

/** A request's values for `REQUEST_COLUMNS`, in their order. */
export const requestValues = (r: RequestRecord) => [
  r.id,
  r.consumer_id,
  r.kind,
  r.topic,
  r.question,
  json(r.context),
  r.target_experts === null ? null : json(r.target_experts),
  json(r.routing_policy),
  r.dedup_key,
  r.status,
  r.reason?.code ?? null,
  r.reason?.message ?? null,
  r.proposal_id,
  r.held ? 1 : 0,
  r.give_up_at,
  r.created_at,
  r.updated_at,
  r.drafting ? 1 : 0,
  r.asked_question,
  r.own_policy === null ? null : json(r.own_policy),
  r.warn_at,
  r.refreshes ?? null,
];

/** The values of `REQUESTS.appendAudit`, in its order. */
export const auditValues = (e: AuditEntry) => [e.request_id, e.at, e.type, e.actor, json(e.data)];
