import type { ConsumerRecord } from '../../domain/records.js';
import { json, toConsumer } from '../row-records.js';
import type { ConsumerRepository } from '../store.js';
import { all, type Db, one, run, write } from './sql.js';

/** Registered consumers, in PostgreSQL. `seq` keeps the order they registered in (SQLite's rowid). */
export class PgConsumers implements ConsumerRepository {
  /** `_locking`: nothing here is read to be changed, so no read takes a row lock. */
  constructor(
    private readonly db: Db,
    _locking: boolean,
  ) {}

  async upsert(c: ConsumerRecord): Promise<void> {
    await write(
      this.db,
      `INSERT INTO consumers (id, handles_kinds, delivery_type, delivery, secret, dedup_window,
        dedup_window_ms, auto_accept, kind_schemas, max_requests_per_day, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (id) DO UPDATE SET handles_kinds = excluded.handles_kinds, delivery_type = excluded.delivery_type,
        delivery = excluded.delivery, secret = excluded.secret, dedup_window = excluded.dedup_window,
        dedup_window_ms = excluded.dedup_window_ms, auto_accept = excluded.auto_accept,
        kind_schemas = excluded.kind_schemas, max_requests_per_day = excluded.max_requests_per_day, updated_at = excluded.updated_at`,
      [
        c.id,
        json(c.handles_kinds),
        c.delivery.type,
        json(c.delivery),
        c.secret,
        c.dedup_window,
        c.dedup_window_ms,
        c.auto_accept ? 1 : 0,
        c.kind_schemas === null ? null : json(c.kind_schemas),
        c.max_requests_per_day,
        c.created_at,
        c.updated_at,
      ],
    );
  }

  async get(id: string): Promise<ConsumerRecord | undefined> {
    const row = await one(this.db, 'SELECT * FROM consumers WHERE id = $1', [id]);
    return row && toConsumer(row);
  }

  async list(): Promise<ConsumerRecord[]> {
    return (await all(this.db, 'SELECT * FROM consumers ORDER BY created_at, seq')).map(toConsumer);
  }

  async delete(id: string): Promise<boolean> {
    return (await run(this.db, 'DELETE FROM consumers WHERE id = $1', [id])) === 1;
  }
}
