import type { AskRecord, AskState, ChatRef } from '../../domain/records.js';
import type { AskPlace, ChatRepository } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';
import { pgStatements } from '../shared/placeholders.js';
import { CHAT } from '../shared/chat-sql.js';

const SQL = pgStatements(CHAT);

/**
 * Each ask's state, its own post and the first post of its expert on its request (a later ask goes in
 * that thread). Each id is looked up on its own (`OFFSET 0` keeps the planner from turning the lookups
 * into a join): a plan made while `asks` was small would otherwise read the whole table for every
 * batch for as long as the connection lives. Likewise the first post is looked for among the asks of
 * the request (a few), not those of the expert (their whole history).
 */
const ASK_PLACES = `SELECT a.id, a.state, own.channel, own.ts, own.thread_ts, f.channel AS first_channel, f.ts AS first_ts, f.thread_ts AS first_thread_ts
  FROM unnest($1::text[]) AS wanted(id)
  JOIN LATERAL (SELECT id, state, request_id, expert_id FROM asks WHERE asks.id = wanted.id OFFSET 0) a ON TRUE
  LEFT JOIN LATERAL (SELECT channel, ts, thread_ts FROM chat_asks WHERE ask_id = a.id OFFSET 0) own ON TRUE
  LEFT JOIN LATERAL (SELECT c.channel, c.ts, c.thread_ts
    FROM (SELECT id, expert_id, created_at FROM asks WHERE request_id = a.request_id OFFSET 0) a2 JOIN chat_asks c ON c.ask_id = a2.id
    WHERE a2.expert_id = a.expert_id ORDER BY a2.created_at, a2.id LIMIT 1) f ON TRUE`;

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
    await write(this.db, 'DELETE FROM chat_asks WHERE channel = $1 AND ts = $2 AND ask_id <> $3', [ref.channel, ref.ts, askId]);
    await write(
      this.db,
      `INSERT INTO chat_asks (ask_id, channel, ts, thread_ts) VALUES ($1, $2, $3, $4)
        ON CONFLICT (ask_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts, thread_ts = excluded.thread_ts`,
      [askId, ref.channel, ref.ts, ref.thread_ts ?? null],
    );
  }

  async ref(askId: string): Promise<ChatRef | undefined> {
    return (await one(this.db, SQL.ref, [askId])) as ChatRef | undefined;
  }

  async askByRef(ref: ChatRef): Promise<AskRecord | undefined> {
    return (await one(this.db, SQL.askByRef, [ref.channel, ref.ts, ref.ts])) as AskRecord | undefined;
  }

  async askPlaces(askIds: readonly string[]): Promise<Map<string, AskPlace>> {
    const places = new Map<string, AskPlace>();
    if (askIds.length === 0) return places;
    for (const r of await all(this.db, ASK_PLACES, [[...new Set(askIds)]])) {
      places.set(r.id as string, {
        state: r.state as AskState,
        ref: r.channel === null ? null : { channel: r.channel as string, ts: r.ts as string, thread_ts: r.thread_ts as string | null },
        firstRef: r.first_channel === null ? null : { channel: r.first_channel as string, ts: r.first_ts as string, thread_ts: r.first_thread_ts as string | null },
      });
    }
    return places;
  }

  /** A second instance recording the same id at once waits for the first's commit, then records nothing. */
  async eventSeen(id: string): Promise<boolean> {
    return (await one(this.db, SQL.eventSeen, [id])) !== undefined;
  }

  async markEvent(id: string, at: number): Promise<boolean> {
    return (await run(this.db, 'INSERT INTO chat_events (id, at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, at])) === 1;
  }
}
