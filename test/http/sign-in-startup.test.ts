import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { buildTestApp, testConfigYaml } from '../support/build-test-app.js';
import { Capture, captureLogger } from '../support/capture.js';
import { cookieAttributes, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startTestProvider, type TestProvider } from '../support/oidc-provider.js';

const SECRET = 'a-session-key-of-more-than-32-bytes-for-tests';
let provider: TestProvider;
/** Answers discovery as something that is not this issuer's OpenID provider. */
let impostor: Server;
let impostorUrl: string;

beforeAll(async () => {
  provider = await startTestProvider({}, 'http://expertq.test/auth/callback');
  impostor = createServer((req, res) => {
    if (req.url === '/elsewhere/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify({ issuer: 'https://login.elsewhere.example', authorization_endpoint: 'https://login.elsewhere.example/auth' }));
    }
    res.statusCode = 404;
    res.end('not here');
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await provider?.close();
  await new Promise((resolve) => impostor?.close(resolve));
});

/** Starts an app with sign-in settings over the working ones; resolves to its start-up error's message. */
async function startupError(oidc: Record<string, unknown>, env: Record<string, string>, server: Record<string, unknown> = { public_url: 'http://expertq.test' }): Promise<string> {
  const started = buildTestApp({
    config: {
      server,
      auth: { session_secret_env: 'EXPERTQ_SESSION_SECRET', oidc: { issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', ...oidc } },
    },
    env,
  });
  return started.then(async (t) => {
    await t.close();
    return 'the app started';
  }, (e: Error) => e.message);
}

const GOOD_ENV = { EXPERTQ_SESSION_SECRET: SECRET, OIDC_CLIENT_SECRET };

describe('sign-in start-up checks (one line each)', () => {
  it('starts with working settings', async () => {
    await expect(startupError({}, GOOD_ENV)).resolves.toBe('the app started');
  });

  it('an unreachable identity provider', async () => {
    // A port nothing listens on: one a server just gave back.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const message = await startupError({ issuer: `http://127.0.0.1:${port}` }, GOOD_ENV);
    expect(message).toBe(`auth.oidc.issuer http://127.0.0.1:${port}: the identity provider cannot be reached (ECONNREFUSED); check the URL and that this host can reach it.`);
    expect(message).not.toContain('\n');
  });

  it('an issuer URL that is not an OpenID provider, or whose discovery names another issuer', async () => {
    const missing = await startupError({ issuer: `${impostorUrl}/nothing` }, GOOD_ENV);
    expect(missing).toMatch(/is not an OpenID provider: its discovery document \(\/\.well-known\/openid-configuration\) was refused/);
    const other = await startupError({ issuer: `${impostorUrl}/elsewhere` }, GOOD_ENV);
    expect(other).toMatch(/is not an OpenID provider: its discovery document .* names another issuer/);
    for (const message of [missing, other]) expect(message).not.toContain('\n');
  });

  it('a session key that is missing or shorter than 32 bytes', async () => {
    const missing = await startupError({}, { OIDC_CLIENT_SECRET });
    expect(missing).toBe('The environment variable EXPERTQ_SESSION_SECRET (auth.session_secret_env) is not set or empty; set it to a random key of at least 32 bytes (openssl rand -base64 48).');
    const short = await startupError({}, { OIDC_CLIENT_SECRET, EXPERTQ_SESSION_SECRET: 'too-short' });
    expect(short).toBe('The environment variable EXPERTQ_SESSION_SECRET (auth.session_secret_env) holds 9 bytes; a session key needs at least 32 (openssl rand -base64 48).');
  });

  it('a client secret variable that is unset', async () => {
    const message = await startupError({}, { EXPERTQ_SESSION_SECRET: SECRET });
    expect(message).toBe('The environment variable OIDC_CLIENT_SECRET (auth.oidc.client_secret_env) is not set or empty; set it to the client secret the identity provider issued for "expertq".');
  });

  it('sign-in without server.public_url, or with an http issuer that is not on this machine, is a configuration error', async () => {
    expect(await startupError({}, GOOD_ENV, {})).toMatch(/server\.public_url: is required with auth\.oidc/);
    expect(await startupError({ issuer: 'http://login.example.com' }, GOOD_ENV)).toMatch(/auth\.oidc\.issuer: must be an https URL \(plain http only on localhost\)/);
  });
});

describe('a server with sign-in', () => {
  it('with no API token is not open: the API, MCP and metrics want a sign-in or a token, and no "authentication is DISABLED" warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-signin-'));
    writeFileSync(join(dir, 'service.yaml'), testConfigYaml({
      server: { public_url: 'http://expertq.test' },
      auth: { session_secret_env: 'EXPERTQ_SESSION_SECRET', oidc: { issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', label: 'Acme SSO' } },
    }));
    const { log, logs } = captureLogger();
    const server = await startServer({ configPath: join(dir, 'service.yaml'), env: GOOD_ENV, logger: log, out: new Capture(), port: 0 });
    try {
      expect(logs.lines.find((l) => String(l.msg).startsWith('authentication is DISABLED'))).toBeUndefined();
      expect(await (await fetch(`${server.url}/auth/session`)).json()).toEqual({ sign_in: { label: 'Acme SSO', login_url: '/auth/login' }, session: null });
      const me = await fetch(`${server.url}/api/v1/me`);
      expect(me.status).toBe(401);
      expect(((await me.json()) as { error: { message: string } }).error.message).toBe('A valid bearer token is required: send Authorization: Bearer <token>, or sign in at /auth/login.');
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })).status).toBe(401);
      const login = await fetch(`${server.url}/auth/login`, { redirect: 'manual' });
      expect(login.status).toBe(302);
      expect(new URL(login.headers.get('location')!).origin).toBe(provider.issuer);
      expect(cookieAttributes(login.headers.get('set-cookie'))).toEqual({ name: 'expertq_login', attributes: ['HttpOnly', 'Max-Age=600', 'Path=/auth', 'SameSite=Lax'] });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
