import type Database from 'better-sqlite3';
import type { ServiceStateRepository } from '../store.js';
import { prepareAll, type Row } from './rows.js';
import { SERVICE_STATE } from '../shared/small-sql.js';

/** Small named values the service keeps between runs, in SQLite. */
export class SqliteServiceState implements ServiceStateRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = prepareAll(db, SERVICE_STATE);
  }

  async get(key: string): Promise<string | undefined> {
    return (this.stmts.get.get(key) as Row | undefined)?.value as string | undefined;
  }

  async set(key: string, value: string): Promise<void> {
    this.stmts.set.run(key, value);
  }

  async setIfAbsent(key: string, value: string): Promise<string> {
    this.stmts.setIfAbsent.run(key, value);
    return (await this.get(key))!;
  }
}
