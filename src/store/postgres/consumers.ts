import type { ConsumerRecord } from '../../domain/records.js';
import { toConsumer } from '../row-records.js';
import { pgText } from '../shared/placeholders.js';
import { CONSUMERS, consumerValues } from '../shared/consumers-sql.js';
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
    await write(this.db, pgText(CONSUMERS.upsert), consumerValues(c));
  }

  async get(id: string): Promise<ConsumerRecord | undefined> {
    const row = await one(this.db, pgText(CONSUMERS.get), [id]);
    return row && toConsumer(row);
  }

  async list(): Promise<ConsumerRecord[]> {
    return (await all(this.db, 'SELECT * FROM consumers ORDER BY created_at, seq')).map(toConsumer);
  }

  async delete(id: string): Promise<boolean> {
    return (await run(this.db, pgText(CONSUMERS.delete), [id])) === 1;
  }
}
