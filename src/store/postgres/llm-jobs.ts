import type { LlmJobRecord } from '../../domain/records.js';
import { json, toLlmJob } from '../row-records.js';
import type { LlmJobRepository, WorkClaim } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';

/**
 * Drafting and structuring jobs, in PostgreSQL. The pending ones are ranges on the partial indexes
 * `llm_jobs_pending` and `llm_jobs_deadline`; a claim skips rows another instance is claiming
 * (SKIP LOCKED), so two instances never lease one job and neither waits for the other.
 */
export class PgLlmJobs implements LlmJobRepository {
  /** `_locking`: a claim always locks the rows it picks (it runs only in a transaction); no other read locks. */
  constructor(
    private readonly db: Db,
    _locking: boolean,
  ) {}

  async insert(job: LlmJobRecord): Promise<void> {
    await write(
      this.db,
      `INSERT INTO llm_jobs (id, stage, request_id, proposal, state, attempts, deadline_at, created_at, finished_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [job.id, job.stage, job.request_id, job.proposal === null ? null : json(job.proposal), job.state, job.attempts, job.deadline_at, job.created_at, job.finished_at],
    );
  }

  async get(id: string): Promise<LlmJobRecord | undefined> {
    const row = await one(this.db, 'SELECT * FROM llm_jobs WHERE id = $1', [id]);
    return row && toLlmJob(row);
  }

  async claim(c: WorkClaim & { exclude: readonly string[] }): Promise<LlmJobRecord[]> {
    const rows = await all(
      this.db,
      `UPDATE llm_jobs SET attempts = attempts + 1, claimed_by = $1, lease_until = $2 WHERE id IN (
        SELECT id FROM llm_jobs WHERE state = 'pending'
          AND (deadline_at IS NULL OR deadline_at > $3) AND (lease_until IS NULL OR lease_until <= $3)
          AND id NOT IN (SELECT jsonb_array_elements_text($4::jsonb))
        ORDER BY created_at, id LIMIT $5
        FOR UPDATE SKIP LOCKED)
      RETURNING *`,
      [c.owner, c.leaseUntil, c.now, json(c.exclude), c.limit],
    );
    return rows.map(toLlmJob).sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  }

  async expiredDrafts(now: number, limit: number): Promise<LlmJobRecord[]> {
    const rows = await all(
      this.db,
      `SELECT * FROM llm_jobs WHERE state = 'pending' AND deadline_at IS NOT NULL
        AND deadline_at <= $1 ORDER BY deadline_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map(toLlmJob);
  }

  async countWaiting(now: number): Promise<number> {
    const row = await one(this.db, `SELECT COUNT(*)::int AS n FROM llm_jobs WHERE state = 'pending' AND (deadline_at IS NULL OR deadline_at > $1)`, [now]);
    return row!.n as number;
  }

  async finish(id: string, at: number): Promise<boolean> {
    const changed = await run(
      this.db,
      `UPDATE llm_jobs SET state = 'done', finished_at = $1, claimed_by = NULL, lease_until = NULL WHERE id = $2 AND state = 'pending'`,
      [at, id],
    );
    return changed === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await write(this.db, `UPDATE llm_jobs SET claimed_by = NULL, lease_until = NULL WHERE id = $1 AND claimed_by = $2 AND state = 'pending'`, [id, owner]);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return run(
      this.db,
      `UPDATE llm_jobs SET lease_until = $1 WHERE id IN (SELECT jsonb_array_elements_text($2::jsonb))
        AND state = 'pending' AND claimed_by = $3`,
      [leaseUntil, json(ids), owner],
    );
  }
}
