import { expect } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { buildTestApp, type TestApp, type TestAppOptions } from './build-test-app.js';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, throughProvider, type TestProvider, type TestUser } from './oidc-provider.js';

export const PUBLIC_URL = 'http://expertq.test';
export const REDIRECT_URL = `${PUBLIC_URL}/auth/callback`;
export const ADMIN = 'admin-token-1';
/** The people the test provider knows: a reviewer, an admin and someone in no reviewer group. */
export const USERS = {
  rita: { email: 'rita@acme.test', groups: ['staff', 'expertq-reviewers'] },
  olly: { email: 'olly@acme.test', groups: ['staff', 'sales'] },
  ada: { email: 'ada@acme.test', groups: ['staff', 'expertq-admins'] },
} satisfies Record<string, TestUser>;
export type UserId = keyof typeof USERS;

export interface SignInAppOptions extends Pick<TestAppOptions<Store>, 'openStore' | 'queueHeartbeatMs'> {
  /** Config sections besides `server` and `auth`. */
  extra?: Record<string, unknown>;
  publicUrl?: string;
}

/** The app with sign-in through the test provider, and the admin token for setting up proposals. */
export function signInApp(provider: TestProvider, { extra = {}, publicUrl = PUBLIC_URL, ...options }: SignInAppOptions = {}): Promise<TestApp<Store>> {
  return buildTestApp<Store>({
    ...options,
    token: ADMIN,
    config: {
      ...extra,
      server: { public_url: publicUrl },
      auth: {
        session_secret_env: 'EXPERTQ_SESSION_SECRET',
        oidc: { issuer: provider.issuer, client_id: OIDC_CLIENT_ID, client_secret_env: 'OIDC_CLIENT_SECRET', scopes: ['openid', 'email', 'groups'], reviewers: ['expertq-reviewers'], admins: ['expertq-admins'] },
      },
    },
    env: { EXPERTQ_SESSION_SECRET: 'a-session-key-of-more-than-32-bytes-for-tests', OIDC_CLIENT_SECRET },
  });
}

/** A cookie's `name=value` from `Set-Cookie` headers, when it is set to a value (not cleared). */
export const cookiePair = (setCookie: string | string[] | undefined, name: string): string | undefined =>
  [setCookie ?? []].flat().map((line) => line.split(';')[0]!).find((pair) => pair.startsWith(`${name}=`) && pair.length > name.length + 1);

/** The browser's way from /auth/login through the provider back to the callback: the callback's path and the sign-in cookie. */
export async function startSignIn(t: TestApp<Store>, provider: TestProvider, as: UserId): Promise<{ callback: string; loginCookie: string }> {
  provider.signInAs(as);
  const login = await t.app.inject({ method: 'GET', url: '/auth/login' });
  expect(login.statusCode).toBe(302);
  const callback = await throughProvider(login.headers.location as string, REDIRECT_URL);
  return { callback: callback.pathname + callback.search, loginCookie: cookiePair(login.headers['set-cookie'], 'expertq_login')! };
}

/** Signs in as a user: the session cookie (`name=value`). */
export async function signIn(t: TestApp<Store>, provider: TestProvider, as: UserId): Promise<string> {
  const { callback, loginCookie } = await startSignIn(t, provider, as);
  const res = await t.app.inject({ method: 'GET', url: callback, headers: { cookie: loginCookie } });
  expect(res.statusCode, res.body).toBe(302);
  expect(res.headers.location).toBe('/');
  return cookiePair(res.headers['set-cookie'], 'expertq_session')!;
}
