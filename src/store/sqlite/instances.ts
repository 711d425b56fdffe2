import type Database from 'better-sqlite3';
import type { InstanceRecord, InstanceRepository } from '../store.js';
import { INSTANCES } from '../shared/small-sql.js';

/** The instances serving from this database, in SQLite (one at a time: the file is locked). */
export class SqliteInstances implements InstanceRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      list: db.prepare('SELECT id, host, pid, version, started_at, last_seen, registry_hash FROM instances ORDER BY started_at, id'),
      upsert: db.prepare(`INSERT INTO instances (id, host, pid, version, started_at, last_seen, registry_hash)
          VALUES (@id, @host, @pid, @version, @started_at, @last_seen, @registry_hash)
          ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, registry_hash = excluded.registry_hash`),
      remove: db.prepare(INSTANCES.remove),
      removeUnseen: db.prepare(INSTANCES.removeUnseen),
    };
  }

  async list(): Promise<InstanceRecord[]> {
    return this.stmts.list.all() as InstanceRecord[];
  }

  async upsert(instance: InstanceRecord): Promise<void> {
    this.stmts.upsert.run(instance);
  }

  async remove(id: string): Promise<void> {
    this.stmts.remove.run(id);
  }

  async removeUnseenSince(before: number): Promise<number> {
    return this.stmts.removeUnseen.run(before).changes;
  }
}
