import type Database from 'better-sqlite3';
import type { ConsumerRecord } from '../../domain/records.js';
import type { ConsumerRepository } from '../store.js';
import { json, type Row, toConsumer } from './rows.js';

function prepare(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    upsert: p(`INSERT INTO consumers (id, handles_kinds, delivery_type, delivery, secret, dedup_window,
        dedup_window_ms, auto_accept, kind_schemas, max_requests_per_day, created_at, updated_at)
        VALUES (@id, @handles_kinds, @delivery_type, @delivery, @secret, @dedup_window, @dedup_window_ms, @auto_accept,
        @kind_schemas, @max_requests_per_day, @created_at, @updated_at)
        ON CONFLICT (id) DO UPDATE SET handles_kinds = excluded.handles_kinds, delivery_type = excluded.delivery_type,
        delivery = excluded.delivery, secret = excluded.secret, dedup_window = excluded.dedup_window,
        dedup_window_ms = excluded.dedup_window_ms, auto_accept = excluded.auto_accept,
        kind_schemas = excluded.kind_schemas, max_requests_per_day = excluded.max_requests_per_day, updated_at = excluded.updated_at`),
    get: p('SELECT * FROM consumers WHERE id = ?'),
    list: p('SELECT * FROM consumers ORDER BY created_at, rowid'),
    delete: p('DELETE FROM consumers WHERE id = ?'),
  };
}

/** Registered consumers, in SQLite. */
export class SqliteConsumers implements ConsumerRepository {
  private readonly stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.stmts = prepare(db);
  }

  async upsert(c: ConsumerRecord): Promise<void> {
    this.stmts.upsert.run({
      ...c,
      handles_kinds: json(c.handles_kinds),
      delivery_type: c.delivery.type,
      delivery: json(c.delivery),
      auto_accept: c.auto_accept ? 1 : 0,
      kind_schemas: c.kind_schemas === null ? null : json(c.kind_schemas),
    });
  }

  async get(id: string): Promise<ConsumerRecord | undefined> {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toConsumer(row);
  }

  async list(): Promise<ConsumerRecord[]> {
    return (this.stmts.list.all() as Row[]).map(toConsumer);
  }

  async delete(id: string): Promise<boolean> {
    return this.stmts.delete.run(id).changes === 1;
  }
}
