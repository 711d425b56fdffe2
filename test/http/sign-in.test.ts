import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { submitBody, type TestApp } from '../support/build-test-app.js';
import { cookieAttributes, OIDC_CLIENT_ID, startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import * as helpers from '../support/sign-in-app.js';
import { ADMIN, cookiePair, PUBLIC_URL, USERS, type UserId } from '../support/sign-in-app.js';

let provider: TestProvider;
let t: TestApp<Store>;
beforeAll(async () => {
  provider = await startTestProvider(USERS, helpers.REDIRECT_URL);
});
afterAll(async () => provider?.close());
afterEach(async () => {
  provider.forgeAudience(null);
  await t?.close();
});

const signInApp = (extra: Record<string, unknown> = {}, publicUrl = PUBLIC_URL) => helpers.signInApp(provider, { extra, publicUrl });
const startSignIn = (as: UserId) => helpers.startSignIn(t, provider, as);
const signIn = (as: UserId) => helpers.signIn(t, provider, as);

async function pendingProposal(): Promise<{ requestId: string; proposalId: string }> {
  const { body } = await t.call('POST', '/api/v1/requests', submitBody());
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
  return { requestId: body.request_id, proposalId: reply.body.proposal_id };
}

describe('reviewer sign-in with OpenID Connect', () => {
  it('a reviewer signs in through the provider and accepts a proposal: the audit records their verified email', async () => {
    t = await signInApp();
    const { requestId, proposalId } = await pendingProposal();
    const session = await signIn('rita');
    expect(session).toBeDefined();

    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } });
    expect(me.json()).toMatchObject({ name: 'rita@acme.test', role: 'reviewer', via: 'session' });
    const state = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: session } });
    expect(state.json()).toMatchObject({ sign_in: { label: '127.0.0.1', login_url: '/auth/login' }, session: { name: 'rita@acme.test', role: 'reviewer' } });

    // A name in the body does not change who decided.
    const accept = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, headers: { cookie: session, origin: PUBLIC_URL }, payload: { decided_by: 'Someone Else' } });
    expect(accept.statusCode, accept.body).toBe(200);
    expect(accept.json().decision.decided_by).toBe('rita@acme.test');
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string; actor: string }>;
    expect(audit.find((row) => row.type === 'decided')?.actor).toBe('reviewer:rita@acme.test');
  });

  it('a decision with a session needs no decided_by in the body', async () => {
    t = await signInApp();
    const { proposalId } = await pendingProposal();
    const session = await signIn('rita');
    const reject = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/reject`, headers: { cookie: session, origin: PUBLIC_URL }, payload: { reason: 'Out of date.' } });
    expect(reject.statusCode, reject.body).toBe(200);
    expect(reject.json().decision).toMatchObject({ decided_by: 'rita@acme.test', reason: 'Out of date.' });
  });

  it('a signed-in reviewer who answered the proposal as an expert cannot decide it (their verified name is compared)', async () => {
    t = await signInApp({ experts: [{ id: 'rita@acme.test', name: 'Rita Reyes', topics: ['billing'] }], topics: {} });
    await t.call('POST', '/api/v1/requests', submitBody());
    const proposalId = (await t.call('POST', '/api/v1/replies', { expert_id: 'rita@acme.test', text: 'Thirty days.' })).body.proposal_id;
    const session = await signIn('rita');
    const accept = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, headers: { cookie: session, origin: PUBLIC_URL }, payload: { decided_by: 'Someone Else' } });
    expect(accept.statusCode).toBe(409);
    expect(accept.json().error.message).toMatch(/Rita Reyes answered this proposal and cannot decide it/);
  });

  it('a person outside the reviewer groups is signed in but may not decide or read the queue (403 saying why)', async () => {
    t = await signInApp();
    const { proposalId } = await pendingProposal();
    const session = await signIn('olly');
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } });
    expect(me.json()).toMatchObject({ name: 'olly@acme.test', role: 'none', via: 'session' });

    const accept = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, headers: { cookie: session, origin: PUBLIC_URL }, payload: {} });
    expect(accept.statusCode).toBe(403);
    expect(accept.json().error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/signed in as olly@acme\.test, but you are in none of the groups that may review/) });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/proposals?status=pending', headers: { cookie: session } })).statusCode).toBe(403);
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
  });

  it('an expired session is refused with 401', async () => {
    t = await signInApp();
    const session = await signIn('rita');
    t.clock.advance(12 * 3_600_000 - 1_000);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } })).statusCode).toBe(200);
    t.clock.advance(2_000);
    const late = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } });
    expect(late.statusCode).toBe(401);
    expect(late.json().error.message).toMatch(/sign-in has expired/);
  });

  it('an ID token issued for another client (wrong audience) is refused: no session', async () => {
    t = await signInApp();
    const { callback, loginCookie } = await startSignIn('rita');
    provider.forgeAudience('some-other-client');
    const res = await t.app.inject({ method: 'GET', url: callback, headers: { cookie: loginCookie } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toMatch(/sign-in was refused.*aud/);
    expect(cookiePair(res.headers['set-cookie'], 'expertq_session')).toBeUndefined();
  });

  it('a replayed callback (the same code and state a second time) is refused', async () => {
    t = await signInApp();
    const { callback, loginCookie } = await startSignIn('rita');
    expect((await t.app.inject({ method: 'GET', url: callback, headers: { cookie: loginCookie } })).statusCode).toBe(302);
    // With the sign-in cookie copied: the provider refuses the used code.
    const copied = await t.app.inject({ method: 'GET', url: callback, headers: { cookie: loginCookie } });
    expect(copied.statusCode).toBe(401);
    expect(cookiePair(copied.headers['set-cookie'], 'expertq_session')).toBeUndefined();
    // As a browser replays it: the first callback cleared the sign-in cookie.
    const browser = await t.app.inject({ method: 'GET', url: callback });
    expect(browser.statusCode).toBe(401);
    expect(browser.json().error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/start again at \/auth\/login/) });
    expect(cookiePair(browser.headers['set-cookie'], 'expertq_session')).toBeUndefined();
  });

  it('a cookie-authenticated change from another site, or with no Origin, is refused with 403; a bearer token needs no Origin', async () => {
    t = await signInApp();
    const { proposalId } = await pendingProposal();
    const session = await signIn('rita');
    for (const origin of ['https://evil.example', undefined]) {
      const res = await t.app.inject({
        method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, payload: {},
        headers: { cookie: session, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
      });
      expect(res.statusCode, String(origin)).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'forbidden', message: expect.stringContaining(`must come from ${PUBLIC_URL}`) });
    }
    // What a page on another site can send without JavaScript: a form post.
    const form = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, payload: 'note=yes', headers: { cookie: session, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.statusCode).toBe(403);
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
    const bearer = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, headers: { authorization: `Bearer ${ADMIN}`, cookie: session }, payload: { decided_by: 'Ada Admin' } });
    expect(bearer.statusCode, bearer.body).toBe(200);
    expect(bearer.json().decision.decided_by).toBe('Ada Admin');
  });

  it('sign-in asks for a code with PKCE, state and nonce; cookies are HttpOnly and SameSite=Lax, and Secure when the public URL is https', async () => {
    t = await signInApp({}, 'https://expertq.example');
    const login = await t.app.inject({ method: 'GET', url: '/auth/login' });
    expect(cookieAttributes(login.headers['set-cookie'])).toEqual({ name: 'expertq_login', attributes: ['HttpOnly', 'Max-Age=600', 'Path=/auth', 'SameSite=Lax', 'Secure'] });
    const asked = new URL(login.headers.location as string).searchParams;
    expect(asked.get('redirect_uri')).toBe('https://expertq.example/auth/callback');
    expect(Object.fromEntries(asked)).toMatchObject({ response_type: 'code', client_id: OIDC_CLIENT_ID, code_challenge_method: 'S256', code_challenge: expect.any(String), state: expect.any(String), nonce: expect.any(String) });
  });

  it('signing out clears the session cookie and ends the session: the old cookie replayed answers 401', async () => {
    t = await signInApp();
    const session = await signIn('rita');
    const out = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: session, origin: PUBLIC_URL } });
    expect(out.statusCode).toBe(204);
    expect(cookieAttributes(out.headers['set-cookie'])).toEqual({ name: 'expertq_session', value: '', attributes: ['HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Lax'] });

    // A copy of the cookie kept from before signing out (another tab, a proxy log, a stolen copy).
    const replayed = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session } });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/signed out|no longer valid/) });
    const state = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: session } });
    expect(state.json().session).toBeNull();
  });
});
