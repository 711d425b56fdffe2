import type { SessionRecord, SessionRepository } from '../session-repository.js';
import { all, one, run, type Db } from './sql.js';

const COLUMNS = 'id, name, role, started_at, expires_at, last_seen';

/** Signed-in sessions in PostgreSQL, shared by every instance: a sign-out on one is seen by all at once. */
export class PgSessions implements SessionRepository {
  constructor(private readonly db: Db) {}

  async live(id: string, now: number): Promise<SessionRecord | undefined> {
    return (await one(this.db, `SELECT ${COLUMNS} FROM sessions WHERE id = $1 AND expires_at > $2`, [id, now])) as SessionRecord | undefined;
  }

  async list(now: number): Promise<SessionRecord[]> {
    return (await all(this.db, `SELECT ${COLUMNS} FROM sessions WHERE expires_at > $1 ORDER BY started_at, id`, [now])) as unknown as SessionRecord[];
  }

  async anyExpired(now: number): Promise<boolean> {
    return (await one(this.db, 'SELECT 1 FROM sessions WHERE expires_at <= $1 LIMIT 1', [now])) !== undefined;
  }

  async start(s: SessionRecord): Promise<void> {
    await run(this.db, `INSERT INTO sessions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [s.id, s.name, s.role, s.started_at, s.expires_at, s.last_seen]);
  }

  async end(id: string): Promise<boolean> {
    return (await run(this.db, 'DELETE FROM sessions WHERE id = $1', [id])) > 0;
  }

  async endAllOf(name: string, now: number): Promise<number> {
    return run(this.db, 'DELETE FROM sessions WHERE name = $1 AND expires_at > $2', [name, now]);
  }

  async seen(id: string, at: number, since: number): Promise<void> {
    await run(this.db, 'UPDATE sessions SET last_seen = $1 WHERE id = $2 AND last_seen < $3', [at, id, since]);
  }

  async removeExpired(now: number): Promise<number> {
    return run(this.db, 'DELETE FROM sessions WHERE expires_at <= $1', [now]);
  }
}
