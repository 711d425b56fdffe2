import type Database from 'better-sqlite3';
import type { ConsumerRecord } from '../../domain/records.js';
import type { ConsumerRepository } from '../store.js';
import { CONSUMERS, consumerValues } from '../shared/consumers-sql.js';
import { prepareAll, type Row, toConsumer } from './rows.js';

/** Registered consumers, in SQLite. */
export class SqliteConsumers implements ConsumerRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      ...prepareAll(db, CONSUMERS),
      list: db.prepare('SELECT * FROM consumers ORDER BY created_at, rowid'),
    };
  }

  async upsert(c: ConsumerRecord): Promise<void> {
    this.stmts.upsert.run(...consumerValues(c));
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
