import type Database from 'better-sqlite3';
import type { LlmJobRecord } from '../../domain/records.js';
import type { LlmJobRepository, WorkClaim } from '../store.js';
import { json, type Row, toLlmJob } from './rows.js';
import { jobValues, LLM_JOBS, oldestFirst } from '../shared/llm-jobs-sql.js';
import { renewLeases, SQLITE_IN_JSON } from '../shared/leases-sql.js';

/** The LLM job statements; the pending ones are ranges on the partial indexes of migration 4. */
function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(LLM_JOBS.insert),
    get: p(LLM_JOBS.get),
    claim: p(`UPDATE llm_jobs SET attempts = attempts + 1, claimed_by = @owner, lease_until = @leaseUntil WHERE id IN (
        SELECT id FROM llm_jobs INDEXED BY llm_jobs_pending WHERE state = 'pending'
          AND (deadline_at IS NULL OR deadline_at > @now) AND (lease_until IS NULL OR lease_until <= @now)
          AND id NOT IN (SELECT value FROM json_each(@exclude))
        ORDER BY created_at, id LIMIT @limit)
      RETURNING *`),
    expired: p(`SELECT * FROM llm_jobs INDEXED BY llm_jobs_deadline WHERE state = 'pending' AND deadline_at IS NOT NULL
      AND deadline_at <= ? ORDER BY deadline_at, id LIMIT ?`),
    waiting: p(`SELECT COUNT(*) FROM llm_jobs INDEXED BY llm_jobs_pending WHERE state = 'pending' AND (deadline_at IS NULL OR deadline_at > ?)`).pluck(),
    finish: p(LLM_JOBS.finish),
    release: p(LLM_JOBS.release),
    renew: p(renewLeases('llm_jobs', SQLITE_IN_JSON)),
  };
}

/** Drafting and structuring jobs, in SQLite. */
export class SqliteLlmJobs implements LlmJobRepository {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  async insert(job: LlmJobRecord): Promise<void> {
    this.stmts.insert.run(...jobValues(job));
  }

  async get(id: string): Promise<LlmJobRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toLlmJob(row);
  }

  async claim(c: WorkClaim & { exclude: readonly string[] }): Promise<LlmJobRecord[]> {
    return (this.stmts.claim.all({ now: c.now, owner: c.owner, leaseUntil: c.leaseUntil, exclude: json(c.exclude), limit: c.limit }) as Row[])
      .map(toLlmJob)
      .sort(oldestFirst);
  }

  async expiredDrafts(now: number, limit: number): Promise<LlmJobRecord[]> {
    return (this.stmts.expired.all(now, limit) as Row[]).map(toLlmJob);
  }

  async countWaiting(now: number): Promise<number> {
    return this.stmts.waiting.get(now) as number;
  }

  async finish(id: string, at: number): Promise<boolean> {
    return this.stmts.finish.run(at, id).changes === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    this.stmts.release.run(id, owner);
  }

  async renewLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<number> {
    return this.stmts.renew.run(leaseUntil, json(ids), owner).changes;
  }
}
