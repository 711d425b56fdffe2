import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startServer, type RunningServer } from '../../src/server.js';
import { BUSY_TIMEOUT_MS } from '../../src/store/sqlite/open-database.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { captureLogger } from '../support/capture.js';

let dir: string;
let configFile: string;
const running: RunningServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-ops-'));
  configFile = join(dir, 'service.yaml');
  writeFileSync(configFile, stringify({ org: { name: 'Acme' }, experts: [{ id: 'dana', name: 'Dana Smith', topics: ['billing'] }] }));
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<RunningServer> {
  const { log } = captureLogger();
  const server = await startServer({ configPath: configFile, env: { SERVICE_API_TOKEN: 'ops-token' }, logger: log, port: 0, out: { write: () => true } as never });
  running.push(server);
  return server;
}

describe('health checks', () => {
  it('GET /healthz and /readyz answer without a token; /readyz names a failing check with 503', async () => {
    const server = await start();
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', transport: 'ok', dispatchers: 'ok', scheduler: 'ok' } });

    server.service.messages.stop();
    const failing = await fetch(`${server.url}/readyz`);
    expect(failing.status).toBe(503);
    expect(await failing.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringMatching(/^Not ready: dispatchers: the outbox dispatchers are stopped/), details: [{ path: 'dispatchers', message: expect.any(String) }] },
    });
  });
});

describe('readiness under storage trouble', () => {
  const submit = (server: RunningServer, i: number) =>
    fetch(`${server.url}/api/v1/requests`, {
      method: 'POST',
      headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' },
      body: JSON.stringify({ consumer_id: 'ops', topic: 'billing', question: `Question ${i} ${'x'.repeat(2000)}?`, context: { asked_because: 'disk test' } }),
    });

  it('a write that failed for want of space fails /readyz (database) until a write succeeds again', async () => {
    const server = await start();
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

  it('a write lock held elsewhere fails /readyz (database) and refuses writes with 503 after a brief wait; /healthz still answers', async () => {
    const server = await start();
    const other = new Database(join(dir, 'expertq.db'));
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
        headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' },
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

  it('too little free disk fails the database check, saying how much is left', async () => {
    const store = openSqliteStore(join(dir, 'check.db'));
    try {
      await expect(store.checkWritable(Number.MAX_SAFE_INTEGER)).rejects.toThrow(/^only [\d.]+ MB free on the disk that holds .*check\.db$/);
      await expect(store.checkWritable()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('one process per database', () => {
  it('refuses a second server on the same database, naming the process that holds it', async () => {
    await start();
    await expect(start()).rejects.toThrow(new RegExp(`is in use by process ${process.pid} \\(started `));
  });

  it('a lock whose holder was killed with -9 is free at once, whatever pid or host the file names', async () => {
    // A holder in another process, recorded as pid 1 on another host (a container on the same volume).
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1], { timeout: 0 });
      db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL); DELETE FROM holder;');
      db.prepare('INSERT INTO holder VALUES (1, ?, ?)').run('old-container', '2026-01-01T00:00:00.000Z');
      db.exec('COMMIT; BEGIN IMMEDIATE');
      process.stdout.write('held\\n');
      setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ['-e', script, join(dir, 'expertq.db.lock')], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    await expect(start()).rejects.toThrow('is in use by process 1 on old-container (started 2026-01-01T00:00:00.000Z)');

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const server = await start(); // pid 1 "on another host" is not asked whether it lives: the kernel let go
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('creates a new database readable by its owner only (it holds signing secrets)', async () => {
    await start();
    expect(statSync(join(dir, 'expertq.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'expertq.db-wal')).mode & 0o777).toBe(0o600);
  });

  it('releases its lock on close: the next server starts on the same database', async () => {
    const first = await start();
    await first.close();
    running.splice(0);
    const second = await start();
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });

  it('replaces a plain-text lock of an earlier version whose process is gone', async () => {
    const lock = join(dir, 'expertq.db.lock');
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), started: '2026-01-01T00:00:00.000Z' }));
    const server = await start();
    expect(existsSync(lock)).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

});
