import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, cleanEnv, EXAMPLE_CONFIG, runCli, TEST_TOKEN } from '../../support/cli.js';

let dir: string;
const env = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-newer-schema-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('configuration errors', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('a database from a newer expertq: one line saying what to do, and the database untouched', async () => {
    const sub = join(dir, 'newer');
    mkdirSync(sub);
    const file = join(sub, 'service.yaml');
    writeFileSync(file, readFileSync(EXAMPLE_CONFIG, 'utf8'));
    const db = new Database(join(sub, 'expertq.db'));
    db.pragma('user_version = 999');
    db.close();
    const result = await runCli(['serve', '--config', file], { env, cwd: sub });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^expertq: The database .*expertq\.db is at schema version 999, newer than this expertq \(\d+\): a newer expertq has used it\. Run that version, or restore the backup taken before the upgrade \(docs\/operations\.md\)\.\n$/);
    const after = new Database(join(sub, 'expertq.db'), { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(999);
    after.close();
  });
});
