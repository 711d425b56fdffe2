import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import type { Store } from '../../../src/store/store.js';
import { captureLogger } from '../../support/capture.js';
import { T0 } from '../records.js';

/** The schema before the give-up warning's column and index on requests (both read every request). */
const BEFORE = 16;
const COLUMNS = 'id, consumer_id, kind, topic, question, context, routing_policy, status, give_up_at, created_at, updated_at';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function databaseAt(version: number, requests: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-upgrade-log-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'expertq.db');
  const db = new Database(path);
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
  db.pragma(`user_version = ${version}`);
  const insert = db.prepare(`INSERT INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(',').map(() => '?').join(', ')})`);
  db.transaction(() => {
    for (let i = 0; i < requests; i++) insert.run(`req_${i}`, 'ledger', 'answer', 'billing', `Question ${i}?`, '{}', '{}', 'accepted', T0, T0, T0);
  })();
  db.close();
  return path;
}

async function schemaLines(path: string): Promise<Array<Record<string, unknown>>> {
  const { log, logs } = captureLogger();
  const store: Store = await openStore({ path }, log);
  cleanups.push(() => store.close());
  return logs.lines.filter((line) => String(line.msg).startsWith('database schema:'));
}

describe('a start that upgrades the database schema says how long it will take, then how long it took', () => {
  it('names the versions and the rows the upgrade reads before it starts, and the time taken after', async () => {
    const lines = await schemaLines(databaseAt(BEFORE, 3000));
    expect(lines.map((l) => l.msg)).toEqual([
      // Every request is read four times: a column added twice, an index built once, the insight rollups filled once.
      expect.stringMatching(new RegExp(`^database schema: upgrading from version ${BEFORE} to ${MIGRATIONS.length}, reading about 12,000 rows: about \\d+\\.\\d s before the server listens$`)),
      expect.stringMatching(new RegExp(`^database schema: upgraded to version ${MIGRATIONS.length} in \\d+\\.\\d s$`)),
    ]);
    expect(lines[0]).toMatchObject({ from: BEFORE, to: MIGRATIONS.length, rows: 12000, estimated_ms: expect.any(Number) });
    expect(lines[1]).toMatchObject({ from: BEFORE, to: MIGRATIONS.length, ms: expect.any(Number) });
  });

  it('counts the rows a database still holds, not the ones retention has pruned', async () => {
    const path = databaseAt(BEFORE, 3000);
    const db = new Database(path);
    // Retention removes the oldest requests first.
    db.prepare('DELETE FROM requests WHERE rowid <= 2000').run();
    db.close();
    const lines = await schemaLines(path);
    expect(lines[0]).toMatchObject({ rows: 4000, msg: expect.stringContaining('reading about 4,000 rows') });
  });

  it('says nothing when it creates a new database or finds the schema current', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-upgrade-log-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(await schemaLines(join(dir, 'new.db'))).toEqual([]);
    expect(await schemaLines(databaseAt(MIGRATIONS.length, 10))).toEqual([]);
  });
});
