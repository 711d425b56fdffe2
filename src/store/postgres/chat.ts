import type { AskRecord, ChatRef } from '../../domain/records.js';
import type { ChatRepository } from '../store.js';
import { type Db, one, run } from './sql.js';

/** Where asks were posted in a chat platform, and the chat events already processed, in PostgreSQL. */
export class PgChat implements ChatRepository {
  /** `_locking`: nothing here is read to be changed, so no read takes a row lock. */
  constructor(
    private readonly db: Db,
    _locking: boolean,
  ) {}

  /**
   * As SQLite's INSERT OR REPLACE: a row holding this ask's place or this message (channel, ts) gives
   * way to the new one, so the unique message index never rejects a re-post.
   */
  async setRef(askId: string, ref: ChatRef): Promise<void> {
    await run(this.db, 'DELETE FROM chat_asks WHERE channel = $1 AND ts = $2 AND ask_id <> $3', [ref.channel, ref.ts, askId]);
    await run(
      this.db,
      `INSERT INTO chat_asks (ask_id, channel, ts, thread_ts) VALUES ($1, $2, $3, $4)
        ON CONFLICT (ask_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts, thread_ts = excluded.thread_ts`,
      [askId, ref.channel, ref.ts, ref.thread_ts ?? null],
    );
  }

  async ref(askId: string): Promise<ChatRef | undefined> {
    return (await one(this.db, 'SELECT channel, ts, thread_ts FROM chat_asks WHERE ask_id = $1', [askId])) as ChatRef | undefined;
  }

  async askByRef(ref: ChatRef): Promise<AskRecord | undefined> {
    return (await one(
      this.db,
      `SELECT asks.* FROM chat_asks JOIN asks ON asks.id = chat_asks.ask_id
        WHERE chat_asks.channel = $1 AND (chat_asks.ts = $2 OR chat_asks.thread_ts = $2)
        ORDER BY asks.created_at DESC, asks.id DESC LIMIT 1`,
      [ref.channel, ref.ts],
    )) as AskRecord | undefined;
  }

  async firstRef(requestId: string, expertId: string): Promise<ChatRef | undefined> {
    return (await one(
      this.db,
      `SELECT c.channel, c.ts, c.thread_ts FROM asks a JOIN chat_asks c ON c.ask_id = a.id
        WHERE a.request_id = $1 AND a.expert_id = $2 ORDER BY a.created_at, a.id LIMIT 1`,
      [requestId, expertId],
    )) as ChatRef | undefined;
  }

  /** A second instance recording the same id at once waits for the first's commit, then records nothing. */
  async markEvent(id: string, at: number): Promise<boolean> {
    return (await run(this.db, 'INSERT INTO chat_events (id, at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, at])) === 1;
  }
}
