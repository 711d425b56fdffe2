import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Pruner } from '../../src/service/operations/pruner.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import type { Store } from '../../src/store/store.js';
import type { TestApp } from '../support/build-test-app.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import * as helpers from '../support/sign-in-app.js';
import { ADMIN, PUBLIC_URL, USERS, type UserId } from '../support/sign-in-app.js';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';

let provider: TestProvider;
let apps: Array<TestApp<Store>> = [];
let t: TestApp<Store>;
beforeAll(async () => {
  provider = await startTestProvider(USERS, helpers.REDIRECT_URL);
});
afterAll(async () => provider?.close());
afterEach(async () => {
  for (const app of apps) await app.close();
  apps = [];
});

async function signInApp(options: helpers.SignInAppOptions = {}): Promise<TestApp<Store>> {
  const app = await helpers.signInApp(provider, options);
  apps.push(app);
  return app;
}
const signIn = (as: UserId, on = t) => helpers.signIn(on, provider, as);
const me = (cookie: string, on = t) => on.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });

describe('sign-in sessions: listing and ending them', () => {
  it('an admin lists the live sessions with name, role and times; a reviewer may not', async () => {
    t = await signInApp();
    const rita = await signIn('rita');
    t.clock.advance(60_000);
    await signIn('olly');

    const listed = await t.call('GET', '/api/v1/sessions');
    expect(listed.status).toBe(200);
    const started = new Date(t.clock.now() - 60_000);
    expect(listed.body.items).toEqual([
      { name: 'rita@acme.test', role: 'reviewer', started_at: started.toISOString(), expires_at: new Date(started.getTime() + 12 * 3_600_000).toISOString(), last_seen: started.toISOString() },
      expect.objectContaining({ name: 'olly@acme.test', role: 'none' }),
    ]);
    const asReviewer = await t.app.inject({ method: 'GET', url: '/api/v1/sessions', headers: { cookie: rita } });
    expect(asReviewer.statusCode).toBe(403);

    // Using a session moves its "last seen", at most every five minutes.
    t.clock.advance(10 * 60_000);
    expect((await me(rita)).statusCode).toBe(200);
    expect((await t.call('GET', '/api/v1/sessions')).body.items[0].last_seen).toBe(new Date(t.clock.now()).toISOString());
    // Expired sessions leave the list.
    t.clock.advance(12 * 3_600_000);
    expect((await t.call('GET', '/api/v1/sessions')).body.items).toEqual([]);
  });

  it('revoking a person ends every one of their sessions at once (each cookie then answers 401), and no one else’s', async () => {
    t = await signInApp();
    const laptop = await signIn('rita');
    const phone = await signIn('rita');
    const olly = await signIn('olly');

    const revoked = await t.call('DELETE', '/api/v1/sessions?name=rita@acme.test');
    expect(revoked).toEqual({ status: 200, body: { name: 'rita@acme.test', ended: 2 } });
    for (const cookie of [laptop, phone]) {
      const res = await me(cookie);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toMatch(/sign-in has ended: you signed out, or an administrator ended your sessions/);
    }
    expect((await me(olly)).statusCode).toBe(200);
    expect((await t.call('GET', '/api/v1/sessions')).body.items.map((s: { name: string }) => s.name)).toEqual(['olly@acme.test']);
    expect((await t.call('DELETE', '/api/v1/sessions?name=rita@acme.test')).body).toEqual({ name: 'rita@acme.test', ended: 0 });
  });

  it('revoking needs a name (400, nothing ended) and the admin role; a signed-in admin revokes with the same Origin rule as any change', async () => {
    t = await signInApp();
    const rita = await signIn('rita');
    const ada = await signIn('ada');
    const missing = await t.call('DELETE', '/api/v1/sessions');
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('bad_request');
    const asReviewer = await t.app.inject({ method: 'DELETE', url: '/api/v1/sessions?name=ada@acme.test', headers: { cookie: rita, origin: PUBLIC_URL } });
    expect(asReviewer.statusCode).toBe(403);
    expect((await t.call('GET', '/api/v1/sessions')).body.items).toHaveLength(2);

    const crossSite = await t.app.inject({ method: 'DELETE', url: '/api/v1/sessions?name=rita@acme.test', headers: { cookie: ada, origin: 'https://evil.example' } });
    expect(crossSite.statusCode).toBe(403);
    const byAdmin = await t.app.inject({ method: 'DELETE', url: '/api/v1/sessions?name=rita@acme.test', headers: { cookie: ada, origin: PUBLIC_URL } });
    expect(byAdmin.json()).toEqual({ name: 'rita@acme.test', ended: 1 });
    expect(t.logs.lines.find((l) => l.msg === 'sessions revoked')).toMatchObject({ name: 'rita@acme.test', ended: 1, by: 'ada@acme.test' });
  });
});

describe('the live queue stream', () => {
  it('a stream opened with a sign-in cookie ends once the session is revoked; one opened with a token goes on', async () => {
    t = await signInApp({ queueHeartbeatMs: 20 });
    const rita = await signIn('rita');
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const open = async (headers: Record<string, string>) => {
      const res = await fetch(`${url}/api/v1/queue/events`, { headers });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      return reader;
    };
    const byCookie = await open({ cookie: rita });
    const byToken = await open({ authorization: `Bearer ${ADMIN}` });
    expect((await t.call('DELETE', '/api/v1/sessions?name=rita@acme.test')).body.ended).toBe(1);
    // The signed-out browser's stream ends (read until done); the token's still sends keep-alives after that.
    while (!(await byCookie.read()).done);
    let later = '';
    for (let chunk = await byToken.read(); !chunk.done && !later.includes('keep-alive'); chunk = await byToken.read()) later += new TextDecoder().decode(chunk.value);
    expect(later).toMatch(/keep-alive/);
    await byToken.cancel();
  });
});

describe('expired sessions', () => {
  it('are removed by the hourly prune, with or without retention configured; live ones stay', async () => {
    t = await signInApp();
    await signIn('rita');
    t.clock.advance(6 * 3_600_000);
    await signIn('olly');
    t.clock.advance(6 * 3_600_000 + 1);
    const pruner = new Pruner(t.store, { retention: null, retentionRequests: null }, t.clock, t.service.log);
    await pruner.run();
    // Every row, expired or not (the list of rows live at the epoch).
    expect((await t.store.sessions.list(0)).map((s) => s.name)).toEqual(['olly@acme.test']);
    expect(t.logs.lines.find((l) => l.msg === 'removed expired sign-in sessions')).toMatchObject({ sessions: 1 });
  });
});

describe('sign-out across instances (PostgreSQL)', () => {
  const database = `eq_sessions_${process.pid}`;
  afterEach(async () => dropTestDatabase(database));

  it('signing out on one instance ends the session on the other at once: the replayed cookie answers 401 there', async () => {
    const url = await createTestDatabase(database);
    const openStore = () => openPgStore({ url, poolSize: 3 });
    const [a, b] = [await signInApp({ openStore }), await signInApp({ openStore })];
    const session = await signIn('rita', a!);
    expect((await me(session, b!)).statusCode).toBe(200);

    const out = await a!.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: session, origin: PUBLIC_URL } });
    expect(out.statusCode).toBe(204);
    expect((await me(session, b!)).statusCode).toBe(401);
    const state = await b!.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: session } });
    expect(state.json().session).toBeNull();
    for (const app of apps) await app.close();
    apps = [];
  });
});
