import type Database from 'better-sqlite3';
import { prepareAll } from './rows.js';
import type { SessionRecord, SessionRepository } from '../session-repository.js';
import { SESSIONS, sessionValues } from '../shared/sessions-sql.js';

/** Signed-in sessions in SQLite: a lookup by id on every cookie-authenticated request (the primary key). */
export class SqliteSessions implements SessionRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = prepareAll(db, SESSIONS);
  }

  async live(id: string, now: number): Promise<SessionRecord | undefined> {
    return this.stmts.live.get(id, now) as SessionRecord | undefined;
  }

  async list(now: number): Promise<SessionRecord[]> {
    return this.stmts.list.all(now) as SessionRecord[];
  }

  async anyExpired(now: number): Promise<boolean> {
    return this.stmts.anyExpired.get(now) !== undefined;
  }

  async start(session: SessionRecord): Promise<void> {
    this.stmts.start.run(...sessionValues(session));
  }

  async end(id: string): Promise<boolean> {
    return this.stmts.end.run(id).changes > 0;
  }

  async endAllOf(name: string, now: number): Promise<number> {
    return this.stmts.endAllOf.run(name, now).changes;
  }

  async seen(id: string, at: number, since: number): Promise<void> {
    this.stmts.seen.run(at, id, since);
  }

  async removeExpired(now: number): Promise<number> {
    return this.stmts.removeExpired.run(now).changes;
  }
}
