import type Database from 'better-sqlite3';
import type { SessionRecord, SessionRepository } from '../session-repository.js';

const COLUMNS = 'id, name, role, started_at, expires_at, last_seen';

/** Signed-in sessions in SQLite: a lookup by id on every cookie-authenticated request (the primary key). */
export class SqliteSessions implements SessionRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      live: db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE id = ? AND expires_at > ?`),
      list: db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE expires_at > ? ORDER BY started_at, id`),
      anyExpired: db.prepare('SELECT 1 FROM sessions WHERE expires_at <= ? LIMIT 1'),
      start: db.prepare(`INSERT INTO sessions (${COLUMNS}) VALUES (@id, @name, @role, @started_at, @expires_at, @last_seen)`),
      end: db.prepare('DELETE FROM sessions WHERE id = ?'),
      endAllOf: db.prepare('DELETE FROM sessions WHERE name = ? AND expires_at > ?'),
      seen: db.prepare('UPDATE sessions SET last_seen = ? WHERE id = ? AND last_seen < ?'),
      removeExpired: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    };
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
    this.stmts.start.run(session);
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
