import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempServers } from './serve-temp-database.js';

const servers = useTempServers();

describe('one process per database', () => {
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
    const holder = spawn(process.execPath, ['-e', script, join(servers.dir, 'expertq.db.lock')], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    await expect(servers.start()).rejects.toThrow('is in use by process 1 on old-container (started 2026-01-01T00:00:00.000Z)');

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const server = await servers.start(); // pid 1 "on another host" is not asked whether it lives: the kernel let go
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('replaces a plain-text lock of an earlier version whose process is gone', async () => {
    const lock = join(servers.dir, 'expertq.db.lock');
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), started: '2026-01-01T00:00:00.000Z' }));
    const server = await servers.start();
    expect(existsSync(lock)).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
