import { afterEach, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { openPgStore } from '../../../src/store/postgres/pg-store.js';
import { createTestDatabaseAt, dropTestDatabase } from '../engines.js';
import { audit, T0 } from '../records.js';

/** The schema version before the audit trail was keyed by request. */
const BEFORE = 16;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const INSERT = 'INSERT INTO audit (request_id, at, type, actor, data) VALUES ($1, $2, $3, $4, $5)';

describe('upgrading a PostgreSQL database whose audit trail was keyed by its sequence alone', () => {
  it('keeps every trail in order, appends after it, and takes entries an older instance writes', async () => {
    expect(PG_MIGRATIONS[BEFORE]).toContain('audit_pkey');
    const name = `eq_audit_key_${process.pid}`;
    const url = await createTestDatabaseAt(name, BEFORE, async (old) => {
      // Two requests' entries interleaved, as concurrent requests write them.
      for (const [requestId, type, at] of [['req_a', 'received', T0], ['req_b', 'received', T0 + 1], ['req_a', 'routed', T0 + 2], ['req_b', 'failed', T0 + 3]] as const) {
        await old.query(INSERT, [requestId, at, type, 'system', '{}']);
      }
    });
    cleanups.push(() => dropTestDatabase(name));

    const store = await openPgStore({ url });
    cleanups.push(() => store.close());
    const types = async (requestId: string) => (await store.requests.audit(requestId)).map((e) => e.type);
    expect(await types('req_a')).toEqual(['received', 'routed']);
    expect(await types('req_b')).toEqual(['received', 'failed']);

    await store.transaction(async (tx) => {
      await tx.requests.appendAudit(audit('req_a', T0 + 4, { type: 'asked' }));
    });
    // What an instance of the previous version writes during a rolling upgrade: the same statement.
    await store.pool.query(INSERT, ['req_a', T0 + 5, 'replied', 'expert:e1', '{}']);
    expect(await types('req_a')).toEqual(['received', 'routed', 'asked', 'replied']);
    expect(await types('req_b')).toEqual(['received', 'failed']);
  });
});
