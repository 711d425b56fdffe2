import type Database from 'better-sqlite3';
import type { AskRecord, AskState, ChatRef } from '../../domain/records.js';
import type { AskPlace, ChatRepository } from '../store.js';
import { CHAT } from '../shared/chat-sql.js';
import { prepareAll } from './rows.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ...prepareAll(db, CHAT),
    setRef: p('INSERT OR REPLACE INTO chat_asks (ask_id, channel, ts, thread_ts) VALUES (?, ?, ?, ?)'),
    firstRef: p(`SELECT c.channel, c.ts, c.thread_ts FROM asks a JOIN chat_asks c ON c.ask_id = a.id
        WHERE a.request_id = ? AND a.expert_id = ? ORDER BY a.created_at, a.id LIMIT 1`),
    markEvent: p('INSERT OR IGNORE INTO chat_events (id, at) VALUES (?, ?)'),
    ask: p('SELECT state, request_id, expert_id FROM asks WHERE id = ?'),
  };
}

/** Where asks were posted in a chat platform, and the chat events already processed, in SQLite. */
export class SqliteChat implements ChatRepository {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  async setRef(askId: string, ref: ChatRef): Promise<void> {
    this.stmts.setRef.run(askId, ref.channel, ref.ts, ref.thread_ts ?? null);
  }

  async ref(askId: string): Promise<ChatRef | undefined> {
    return this.stmts.ref.get(askId) as ChatRef | undefined;
  }

  async askByRef(ref: ChatRef): Promise<AskRecord | undefined> {
    return this.stmts.askByRef.get(ref.channel, ref.ts, ref.ts) as AskRecord | undefined;
  }

  async askPlaces(askIds: readonly string[]): Promise<Map<string, AskPlace>> {
    const places = new Map<string, AskPlace>();
    for (const id of new Set(askIds)) {
      const ask = this.stmts.ask.get(id) as { state: AskState; request_id: string; expert_id: string } | undefined;
      if (!ask) continue;
      const ref = (this.stmts.ref.get(id) as ChatRef | undefined) ?? null;
      const firstRef = (this.stmts.firstRef.get(ask.request_id, ask.expert_id) as ChatRef | undefined) ?? null;
      places.set(id, { state: ask.state, ref, firstRef });
    }
    return places;
  }

  async eventSeen(id: string): Promise<boolean> {
    return this.stmts.eventSeen.get(id) !== undefined;
  }

  async markEvent(id: string, at: number): Promise<boolean> {
    return this.stmts.markEvent.run(id, at).changes === 1;
  }
}
