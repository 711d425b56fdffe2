import type { InstanceRecord, InstanceRepository } from '../store.js';
import { all, run, type Db } from './sql.js';

/** The instances serving from this database, in PostgreSQL. */
export class PgInstances implements InstanceRepository {
  constructor(private readonly db: Db) {}

  async list(): Promise<InstanceRecord[]> {
    return (await all(this.db, 'SELECT id, host, pid, version, started_at, last_seen, registry_hash FROM instances ORDER BY started_at, id')) as unknown as InstanceRecord[];
  }

  async upsert(i: InstanceRecord): Promise<void> {
    await run(
      this.db,
      `INSERT INTO instances (id, host, pid, version, started_at, last_seen, registry_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, registry_hash = excluded.registry_hash`,
      [i.id, i.host, i.pid, i.version, i.started_at, i.last_seen, i.registry_hash],
    );
  }

  async remove(id: string): Promise<void> {
    await run(this.db, 'DELETE FROM instances WHERE id = $1', [id]);
  }

  async removeUnseenSince(before: number): Promise<number> {
    return run(this.db, 'DELETE FROM instances WHERE last_seen < $1', [before]);
  }
}
