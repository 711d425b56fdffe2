import type { ServiceStateRepository } from '../store.js';
import { type Db, one, write } from './sql.js';

/** Small named values the service keeps between runs, in PostgreSQL. */
export class PgServiceState implements ServiceStateRepository {
  /** `_locking`: nothing here is read to be changed, so no read takes a row lock. */
  constructor(
    private readonly db: Db,
    _locking: boolean,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await one(this.db, 'SELECT value FROM service_state WHERE key = $1', [key]))?.value as string | undefined;
  }

  async set(key: string, value: string): Promise<void> {
    await write(this.db, 'INSERT INTO service_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }
}
