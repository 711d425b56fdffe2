import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../src/server.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { OPS_TOKEN, useTempServers } from './serve-temp-database.js';

const servers = useTempServers();

describe('readiness under storage trouble', () => {
  const submit = (server: RunningServer, i: number) =>
    fetch(`${server.url}/api/v1/requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ consumer_id: 'ops', topic: 'billing', question: `Question ${i} ${'x'.repeat(2000)}?`, context: { asked_because: 'disk test' } }),
    });

  it('a write that failed for want of space fails /readyz (database) until a write succeeds again', async () => {
    const server = await servers.start();
    const db = (server.service.store as SqliteStore).db;
    // SQLite answers SQLITE_FULL, exactly as on a full disk, once the file may not grow.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    let response = await submit(server, 0);
    for (let i = 1; response.status === 200 && i < 200; i++) response = await submit(server, i);
    // The client is told plainly, and may retry: nothing was written.
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'unavailable',
      message: 'The server cannot store anything right now (its database cannot take writes); nothing was changed. Try again later.',
    });
    // A burst shares one group commit: whatever failed was not written, whatever was answered 200 was.
    const count = () => (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
    const before = count();
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => submit(server, 500 + i)));
    expect(burst.every((r) => r.status === 200 || r.status === 503)).toBe(true);
    expect(count() - before).toBe(burst.filter((r) => r.status === 200).length);

    const failing = await fetch(`${server.url}/readyz`);
    expect(failing.status).toBe(503);
    const body = (await failing.json()) as { error: { message: string; details: Array<{ path: string }> } };
    expect(body.error.message).toMatch(/database: the database cannot be written: a write failed \d+ s ago \(database or disk is full\)/);
    expect(body.error.details.map((d) => d.path)).toEqual(['database']);

    db.pragma('max_page_count = 1073741823'); // space freed: the next write succeeds, and clears it
    expect((await submit(server, 999)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('too little free disk fails the database check, saying how much is left', async () => {
    const store = openSqliteStore(join(servers.dir, 'check.db'));
    try {
      await expect(store.checkWritable(Number.MAX_SAFE_INTEGER)).rejects.toThrow(/^only [\d.]+ MB free on the disk that holds .*check\.db$/);
      await expect(store.checkWritable()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
