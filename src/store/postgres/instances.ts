import type { InstanceRecord, InstanceRepository } from '../store.js';
import { STORE_GENERATION } from './generation.js';
import { pgText } from '../shared/placeholders.js';
import { INSTANCES } from '../shared/small-sql.js';
import { all, run, type Db } from './sql.js';

/** The instances serving from this database, in PostgreSQL. */
export class PgInstances implements InstanceRepository {
  constructor(private readonly db: Db) {}

  async list(): Promise<InstanceRecord[]> {
    const rows = await all(this.db, 'SELECT id, host, pid, version, started_at, last_seen, registry_hash, generation FROM instances ORDER BY started_at, id');
    return rows as unknown as InstanceRecord[];
  }

  /** Registers (or refreshes) `i` as an instance of this version's storage generation. */
  async upsert(i: InstanceRecord): Promise<void> {
    await run(
      this.db,
      `INSERT INTO instances (id, host, pid, version, started_at, last_seen, registry_hash, generation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, registry_hash = excluded.registry_hash, generation = excluded.generation`,
      [i.id, i.host, i.pid, i.version, i.started_at, i.last_seen, i.registry_hash, STORE_GENERATION],
    );
  }

  async remove(id: string): Promise<void> {
    await run(this.db, pgText(INSTANCES.remove), [id]);
  }

  async removeUnseenSince(before: number): Promise<number> {
    return run(this.db, pgText(INSTANCES.removeUnseen), [before]);
  }
}
