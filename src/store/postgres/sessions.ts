import type { SessionRecord, SessionRepository } from '../session-repository.js';
import { pgStatements } from '../shared/placeholders.js';
import { SESSIONS, sessionValues } from '../shared/sessions-sql.js';
import { all, one, run, type Db } from './sql.js';

const SQL = pgStatements(SESSIONS);

/** Signed-in sessions in PostgreSQL, shared by every instance: a sign-out on one is seen by all at once. */
export class PgSessions implements SessionRepository {
  constructor(private readonly db: Db) {}

  async live(id: string, now: number): Promise<SessionRecord | undefined> {
    return (await one(this.db, SQL.live, [id, now])) as SessionRecord | undefined;
  }

  async list(now: number): Promise<SessionRecord[]> {
    return (await all(this.db, SQL.list, [now])) as unknown as SessionRecord[];
  }

  async anyExpired(now: number): Promise<boolean> {
    return (await one(this.db, SQL.anyExpired, [now])) !== undefined;
  }

  async start(s: SessionRecord): Promise<void> {
    await run(this.db, SQL.start, sessionValues(s));
  }

  async end(id: string): Promise<boolean> {
    return (await run(this.db, SQL.end, [id])) > 0;
  }

  async endAllOf(name: string, now: number): Promise<number> {
    return run(this.db, SQL.endAllOf, [name, now]);
  }

  async seen(id: string, at: number, since: number): Promise<void> {
    await run(this.db, SQL.seen, [at, id, since]);
  }

  async removeExpired(now: number): Promise<number> {
    return run(this.db, SQL.removeExpired, [now]);
  }
}
