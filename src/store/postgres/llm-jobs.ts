import type { LlmJobRecord } from '../../domain/records.js';
import { json, toLlmJob } from '../row-records.js';
import type { LlmJobRepository, WorkClaim } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';
import { pgText } from '../shared/placeholders.js';
import { jobValues, LLM_JOBS, oldestFirst } from '../shared/llm-jobs-sql.js';
import { renewLeases } from '../shared/leases-sql.js';

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
    await write(this.db, pgText(LLM_JOBS.insert), jobValues(job));
  }

  async get(id: string): Promise<LlmJobRecord | undefined> {
    const row = await one(this.db, pgText(LLM_JOBS.get), [id]);
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
    return rows.map(toLlmJob).sort(oldestFirst);
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
    return (await run(this.db, pgText(LLM_JOBS.finish), [at, id])) === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await write(this.db, pgText(LLM_JOBS.release), [id, owner]);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return run(this.db, pgText(renewLeases('llm_jobs', 'IN (SELECT jsonb_array_elements_text(?::jsonb))')), [leaseUntil, json(ids), owner]);
  }
}
