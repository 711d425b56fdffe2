import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load-config.js';
import { PG_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { openPgStore } from '../../../src/store/postgres/pg-store.js';
import { BIN, cleanEnv, freePort, SPAWN_TIMEOUT_MS } from '../../support/cli.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(yaml: string, env: Record<string, string> = {}): Promise<{ status: number; stderr: string }> {
  const port = String(await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'expertq-pg-start-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'service.yaml'), yaml);
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'serve', '--config', join(dir, 'service.yaml'), '--port', port], { env: cleanEnv(env), encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS }, (error, _out, stderr) =>
      resolve({ status: error ? Number(error.code) : 0, stderr }),
    );
  });
}

describe('starting on PostgreSQL', () => {
  it('refuses in one line when the variable storage.url_env names is unset', async () => {
    const run = await serve('org: {name: Acme}\nstorage: {url_env: EXPERTQ_DB}\n');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe("expertq: storage.url_env names EXPERTQ_DB, which is not set: set it to the database's postgres:// URL.\n");
  });

  it('refuses in one line, password hidden, when the database is out of reach', async () => {
    const run = await serve('org: {name: Acme}\nstorage: {url_env: EXPERTQ_DB}\n', { EXPERTQ_DB: 'postgres://expertq:s3cret@127.0.0.1:1/expertq' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^expertq: Cannot open the PostgreSQL database postgres:\/\/expertq:\*\*\*@127\.0\.0\.1:1\/expertq: the database is out of reach: .*ECONNREFUSED.*\n$/);
    expect(run.stderr).not.toContain('s3cret');
  });

  it('backup and restore point to pg_dump instead of copying a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-pg-backup-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'service.yaml'), 'org: {name: Acme}\nstorage: {url_env: EXPERTQ_DB}\n');
    for (const command of [['backup', join(dir, 'copy.db')], ['restore', join(dir, 'copy.db')]]) {
      const run = await new Promise<{ status: number; stderr: string }>((resolve) => {
        execFile(process.execPath, [BIN, ...command, '--config', join(dir, 'service.yaml')], { env: cleanEnv(), encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS }, (error, _out, stderr) =>
          resolve({ status: error ? Number(error.code) : 0, stderr }),
        );
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`expertq ${command[0]} works on a SQLite file; this configuration uses PostgreSQL (storage.url_env). Use pg_dump and pg_restore`);
    }
  });

  it('an older expertq refuses a database a newer one has migrated, naming both versions', async () => {
    const name = `eq_newer_${process.pid}`;
    const url = await createTestDatabase(name);
    cleanups.push(() => dropTestDatabase(name));
    const store = await openPgStore({ url });
    await store.pool.query('UPDATE expertq_schema SET version = 99');
    await store.close();
    const refused = await openPgStore({ url }).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(new RegExp(`^The database postgres://.* is at schema version 99, newer than this expertq \\(${PG_MIGRATIONS.length}\\): a newer expertq has used it\\.`));
  });
});
