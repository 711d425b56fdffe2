import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { TestApp } from '../support/build-test-app.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import * as helpers from '../support/sign-in-app.js';
import { ADMIN, USERS } from '../support/sign-in-app.js';

let provider: TestProvider;
let t: TestApp<Store> | undefined;
let cwd = '';
beforeAll(async () => {
  provider = await startTestProvider(USERS, helpers.REDIRECT_URL);
  cwd = mkdtempSync(join(tmpdir(), 'expertq-cli-sessions-'));
});
afterAll(async () => {
  await provider?.close();
  rmSync(cwd, { recursive: true, force: true });
});
afterEach(async () => t?.close());

/** The app with sign-in, listening on a local port for the real `expertq` binary. */
async function served(): Promise<{ app: TestApp<Store>; cli: (...args: string[]) => ReturnType<typeof runCli> }> {
  const app = await helpers.signInApp(provider);
  const url = await app.app.listen({ port: 0, host: '127.0.0.1' });
  return { app, cli: (...args) => runCli(['--url', url, ...args], { cwd, env: cleanEnv({ EXPERTQ_TOKEN: ADMIN }) }) };
}

describe('expertq sessions', () => {
  it('lists who is signed in, and `sessions revoke <name>` signs one person out everywhere, saying how many sessions ended', async () => {
    const s = await served();
    t = s.app;
    expect((await s.cli('sessions')).stdout).toBe('Nobody is signed in.\n');
    const rita = await helpers.signIn(t, provider, 'rita');
    t.clock.advance(60_000);
    await helpers.signIn(t, provider, 'rita');
    t.clock.advance(60_000);
    await helpers.signIn(t, provider, 'olly');

    const listed = await s.cli('sessions');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ROLE\s+STARTED\s+EXPIRES\s+LAST SEEN$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([['rita@acme.test', 'reviewer'], ['rita@acme.test', 'reviewer'], ['olly@acme.test', 'none']]);

    const revoked = await s.cli('sessions', 'revoke', 'rita@acme.test');
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('Ended 2 sessions of rita@acme.test: their next request needs a new sign-in.\n');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: rita } })).statusCode).toBe(401);
    expect((await s.cli('--json', 'sessions', 'revoke', 'rita@acme.test')).stdout).toContain('"ended": 0');
    expect((await s.cli('sessions', 'revoke', 'nobody@acme.test')).stdout).toMatch(/^nobody@acme\.test had no live session; nothing ended\./);
    expect(JSON.parse((await s.cli('--json', 'sessions')).stdout).items.map((i: { name: string }) => i.name)).toEqual(['olly@acme.test']);
  });

  it('explains the admin API behind it in its help', async () => {
    const help = await runCli(['sessions', '--help'], { cwd, env: cleanEnv() });
    expect(help.stdout).toMatch(/revoke <name> +end every session of one person/);
    expect(help.stdout).toMatch(/signed in to the web UI through the identity provider/);
    expect(help.stdout).toContain('DELETE /api/v1/sessions?name=<name> for `revoke`');
  });
});
