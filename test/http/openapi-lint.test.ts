import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';
import { signInConfig, startContractProvider, type TestProvider } from '../support/contract-app.js';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..');
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}

/** `redocly lint` (the project's redocly.yaml) on a document, as a user would run it. */
async function lint(doc: unknown): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const described = (problems: Problem[]) => problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

describe('the served OpenAPI document passes redocly lint (recommended rules)', () => {
  let provider: TestProvider;
  let t: TestApp | undefined;
  beforeAll(async () => {
    provider = await startContractProvider();
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  it('with bearer tokens only', async () => {
    t = await buildTestApp({ token: 'lint-token' });
    const result = await lint((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json());
    expect(described(result.problems)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
    // Without server.public_url, the server is the address the document was fetched from.
    const fetched = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { host: '127.0.0.1:7101' } });
    expect(fetched.json().servers).toEqual([{ url: 'http://127.0.0.1:7101' }]);
    await t.close();
    t = undefined;
  });

  it('with sign-in configured (the /auth routes listed too)', async () => {
    t = await buildTestApp(signInConfig(provider, 'lint-token'));
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/auth/login', '/auth/callback', '/auth/logout']));
    expect(doc.servers).toEqual([{ url: 'http://expertq.test' }]);
    const result = await lint(doc);
    expect(described(result.problems)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
