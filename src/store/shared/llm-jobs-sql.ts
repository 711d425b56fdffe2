import type { LlmJobRecord } from '../../domain/records.js';
import { json } from '../row-records.js';

/**
 * The statements of LLM jobs the same in both engines (`?` placeholders: `pgText`). Claiming, renewing
 * and the due reads differ: SQLite names the partial index to use, PostgreSQL skips rows another
 * instance is claiming, and each passes a list of ids its own way.
 */
export const LLM_JOBS = {
  insert: `INSERT INTO llm_jobs (id, stage, request_id, proposal, state, attempts, deadline_at, created_at, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  get: 'SELECT * FROM llm_jobs WHERE id = ?',
  finish: `UPDATE llm_jobs SET state = 'done', finished_at = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND state = 'pending'`,
  release: `UPDATE llm_jobs SET claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND state = 'pending'`,
} as const;

/** The values of `LLM_JOBS.insert`, in its order. */
export const jobValues = (job: LlmJobRecord) => [
  job.id,
  job.stage,
  job.request_id,
  job.proposal === null ? null : json(job.proposal),
  job.state,
  job.attempts,
  job.deadline_at,
  job.created_at,
  job.finished_at,
];

/** Claimed jobs oldest first (an UPDATE … RETURNING gives no order). */
export const oldestFirst = (a: LlmJobRecord, b: LlmJobRecord) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1);
