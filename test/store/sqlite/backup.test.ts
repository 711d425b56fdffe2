import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, CLI_TEST_TIMEOUT_MS, cliFor, makeWorkspace, serveWorkspace, TEST_TOKEN, type ServerProcess, type Workspace } from '../../support/cli.js';

let ws: Workspace;
let server: ServerProcess | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  ws?.remove();
});

const requestsIn = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('expertq backup and restore', () => {
  it('a backup taken under load is consistent, and restores into a server that serves it', { timeout: CLI_TEST_TIMEOUT_MS }, async () => {
    ws = await makeWorkspace();
    server = await serveWorkspace(ws);
    const cli = cliFor(ws);
    const post = (body: unknown) =>
      fetch(`${ws.url}/api/v1/requests`, { method: 'POST', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // Writers keep submitting while the backup runs.
    let writing = true;
    let submitted = 0;
    const load = (async () => {
      while (writing) {
        const batch = await Promise.all(
          Array.from({ length: 8 }, (_, i) => post({ consumer_id: 'load', topic: 'billing', question: `Load ${submitted + i}?`, context: { asked_because: 'load test' } })),
        );
        for (const res of batch) expect(res.status).toBe(200);
        submitted += batch.length;
      }
    })();
    while (submitted < 200) await new Promise((resolve) => setImmediate(resolve));
    const backupFile = join(ws.dir, 'nightly.db');
    const backup = await cli('backup', backupFile);
    const atBackup = submitted;
    writing = false;
    await load;

    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(new RegExp(`^Backed up .*expertq\\.db to ${backupFile.replace(/[.]/g, '\\.')} \\([\\d.]+ MB, integrity ok\\) in [\\d.]+ s\\.$`, 'm'));
    // One self-contained file: no -wal or partial file beside it.
    expect(readdirSync(ws.dir).filter((f) => f.startsWith('nightly'))).toEqual(['nightly.db']);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600); // it holds signing secrets: the owner's only
    // The restore hint names the config by its absolute path: pasted anywhere later, it restores this
    // database and no other.
    expect(backup.stdout).toContain(`\nRestore it with: node ${BIN} restore ${backupFile} --config ${ws.configFile} (the server must be stopped)\n`);
    const check = new Database(backupFile, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.pragma('foreign_key_check')).toEqual([]);
    check.close();
    const inBackup = requestsIn(backupFile);
    expect(inBackup).toBeGreaterThanOrEqual(200);
    expect(inBackup).toBeLessThanOrEqual(atBackup + 8);
    expect(submitted).toBeGreaterThan(inBackup); // writes went on during and after it

    // A second backup to the same file is refused unless --force.
    expect((await cli('backup', backupFile)).stderr).toBe(`expertq: ${backupFile} already exists; pass --force to overwrite it.\n`);

    // Restore needs the server stopped: it holds the database.
    const refused = await cli('restore', backupFile);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is in use by process \d+/);

    await server.stop();
    server = null;
    const restored = await cli('restore', backupFile);
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toMatch(/^Restored .*expertq\.db from .*nightly\.db\.$/m);
    expect(restored.stdout).toMatch(/^The database it replaced is kept as .*expertq\.db\.before-restore-/m);

    server = await serveWorkspace(ws);
    let served = 0;
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = await fetch(`${ws.url}/api/v1/requests?consumer_id=load&limit=500${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      const body = (await page.json()) as { items: unknown[]; next_cursor: string | null };
      served += body.items.length;
      cursor = body.next_cursor;
    }
    expect(served).toBe(inBackup);
    expect(existsSync(join(ws.dir, 'expertq.db.lock'))).toBe(true);
  });

  it('refuses a file that is not a sound database, changing nothing', async () => {
    ws = await makeWorkspace();
    const cli = cliFor(ws);
    const res = await cli('restore', ws.configFile);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is not a sound database \(.*\); nothing was changed\.\n$/);
  });
});
