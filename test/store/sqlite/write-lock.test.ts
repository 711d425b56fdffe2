import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BUSY_TIMEOUT_MS } from '../../../src/store/sqlite/open-database.js';
import type { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { OPS_TOKEN, useTempServers } from './serve-temp-database.js';

const servers = useTempServers();

describe('readiness under storage trouble', () => {
  it('a write lock held elsewhere fails /readyz (database) and refuses writes with 503 after a brief wait; /healthz still answers', async () => {
    const server = await servers.start();
    const other = new Database(join(servers.dir, 'expertq.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { error: { message: string } }).error.message).toMatch(/database: the database cannot be written: database is locked/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // A write waits only briefly (the wait blocks the event loop), then is refused with a retry hint.
      expect((server.service.store as SqliteStore).db.pragma('busy_timeout', { simple: true })).toBe(BUSY_TIMEOUT_MS);
      const refused = await fetch(`${server.url}/api/v1/requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ consumer_id: 'ops', topic: 'billing', question: 'Locked?', context: { asked_because: 'lock test' } }),
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
