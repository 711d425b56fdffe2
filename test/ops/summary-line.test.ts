import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

/** The last line `npm test` prints, which CI reads, for the given fixture files. */
function summaryOf(...args: string[]): { line: string; status: number | null } {
  const run = spawnSync(process.execPath, [VITEST, 'run', '--config', 'test/ops/fixtures/summary/vitest.config.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: '1' },
    timeout: 60_000,
  });
  const lines = run.stdout.trim().split('\n');
  return { line: lines[lines.length - 1]!, status: run.status };
}

describe('the closing line of a test run', () => {
  it('counts the tests of a file whose set-up failed as failed, not skipped', () => {
    const { line, status } = summaryOf('hook-fails', 'passes');
    expect(status).not.toBe(0);
    expect(line).toBe('1 passed, 2 failed, 1 skipped');
  });

  it('counts a test left out by a name filter as skipped, beside one that failed', () => {
    expect(summaryOf('one-fails', '-t', 'fails')).toEqual({ line: '0 passed, 1 failed, 1 skipped', status: 1 });
  });

  it('counts a test skipped on purpose as skipped', () => {
    expect(summaryOf('passes')).toEqual({ line: '1 passed, 0 failed, 1 skipped', status: 0 });
  });
});
