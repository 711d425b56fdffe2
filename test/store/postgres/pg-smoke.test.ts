import { describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { openPgStore } from '../../../src/store/postgres/pg-store.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';

describe('PostgreSQL engine', () => {
  it('migrates a new database once, though two instances open it at the same moment', async () => {
    const name = `eq_smoke_${process.pid}`;
    const url = await createTestDatabase(name);
    const [a, b] = await Promise.all([openPgStore({ url }), openPgStore({ url })]);
    const version = await a.pool.query('SELECT version FROM expertq_schema');
    expect(version.rows).toEqual([{ version: PG_MIGRATIONS.length }]);
    await a.checkWritable();
    await Promise.all([a.close(), b.close()]);
    await dropTestDatabase(name);
  });
});
