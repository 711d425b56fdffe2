import type { ServiceStateRepository } from '../store.js';
import { pgText } from '../shared/placeholders.js';
import { SERVICE_STATE } from '../shared/small-sql.js';
import { type Db, one, write } from './sql.js';

const SQL = { get: pgText(SERVICE_STATE.get), set: pgText(SERVICE_STATE.set), setIfAbsent: pgText(SERVICE_STATE.setIfAbsent) };

/** Small named values the service keeps between runs, in PostgreSQL. */
export class PgServiceState implements ServiceStateRepository {
  /** `_locking`: nothing here is read to be changed, so no read takes a row lock. */
  constructor(
    private readonly db: Db,
    _locking: boolean,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await one(this.db, SQL.get, [key]))?.value as string | undefined;
  }

  async set(key: string, value: string): Promise<void> {
    await write(this.db, SQL.set, [key, value]);
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    await write(this.db, SQL.setIfAbsent, [key, value]);
    return (await this.get(key))!;
  }
}
