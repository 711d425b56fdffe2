import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as client from 'openid-client';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { AppError, forbidden } from '../../errors.js';
import { signInStateView } from '../../wire/auth-schemas.js';
import { errorBody } from '../../wire/schemas.js';
import type { SignIn } from './prepare-sign-in.js';
import { groupsFromClaim, nameFromClaim, roleFromGroups } from './read-identity.js';
import { cookieHeader, LOGIN_COOKIE, readCookie, seal, SESSION_COOKIE, unseal } from './sealed-cookies.js';
import { clearedSessionCookie, openSession, readSession, sessionCookie, type SessionBook } from './session.js';

/** How long a sign-in may take at the provider before its state cookie lapses. */
const LOGIN_TTL_MS = 10 * 60_000;

export interface AuthRouteOptions {
  signIn: SignIn | null;
  clock: Clock;
  /** Where sessions are recorded, so signing out ends them on every instance. */
  sessions: SessionBook;
}

/**
 * `/auth/*`: sign-in through the organisation's OpenID provider (authorization code with PKCE, state
 * and nonce, all through openid-client), sign-out, and what a page needs to know before it has any
 * credentials. The sign-in in progress and the session are sealed cookies; each session is also recorded
 * in the database, so signing out ends it for good, on every instance.
 */
export const authRoutes: FastifyPluginAsyncZod<AuthRouteOptions> = async (app, { signIn, clock, sessions }) => {
  app.get('/auth/session', {
    schema: { operationId: 'getSignInSession', summary: 'Whether sign-in is offered, and who is signed in with this browser', tags: ['auth'], security: [], response: { 200: signInStateView } },
    handler: async (req) => {
      if (!signIn) return { sign_in: null, session: null };
      const session = await readSession(signIn, sessions, req.headers.cookie, clock.now());
      return {
        sign_in: { label: signIn.label, login_url: '/auth/login' },
        session: typeof session === 'string' ? null : { name: session.name, role: session.role as 'none' | 'reviewer' | 'admin', expires_at: new Date(session.expiresAt).toISOString() },
      };
    },
  });
  if (!signIn) return;
  const loginCookie = (value: string, maxAge: number) => cookieHeader(LOGIN_COOKIE, value, { path: '/auth', maxAge, secure: signIn.secureCookies });

  app.get('/auth/login', { schema: { operationId: 'signIn', summary: 'Start signing in: redirects to the identity provider', tags: ['auth'], security: [], response: { 302: z.null().describe('To the identity provider') } } }, async (_req, reply) => {
    const now = clock.now();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(signIn.provider, {
      redirect_uri: signIn.redirectUrl,
      scope: signIn.settings.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const sealed = await seal({ verifier, state, nonce }, signIn.keys.login, now, now + LOGIN_TTL_MS);
    return reply.header('set-cookie', loginCookie(sealed, LOGIN_TTL_MS / 1000)).header('cache-control', 'no-store').redirect(url.href, 302);
  });

  app.get('/auth/callback', { schema: { operationId: 'finishSignIn', summary: 'Where the identity provider sends the browser back', tags: ['auth'], security: [], response: { 302: z.null().describe('Signed in: back to the approval UI'), 400: errorBody, 401: errorBody } } }, async (req, reply) => {
    const now = clock.now();
    // The sign-in state is single-use in this browser: cleared whatever happens next.
    reply.header('set-cookie', loginCookie('', 0)).header('cache-control', 'no-store');
    const sealed = readCookie(req.headers.cookie, LOGIN_COOKIE);
    const pending = sealed ? await unseal(sealed, signIn.keys.login, now) : null;
    // A replayed callback lands here (the first one cleared the cookie): refused like any failed sign-in.
    if (!pending) throw new AppError('unauthorized', 'The sign-in was refused: no sign-in was started in this browser, or it took longer than 10 minutes or was already completed; start again at /auth/login.');
    const current = new URL(signIn.redirectUrl);
    current.search = new URL(req.url, 'http://callback').search;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(signIn.provider, current, {
        pkceCodeVerifier: pending.verifier as string,
        expectedState: pending.state as string,
        expectedNonce: pending.nonce as string,
        idTokenExpected: true,
      });
    } catch (error) {
      throw refused(req.log, error);
    }
    const claims: Record<string, unknown> = { ...tokens.claims() };
    const { name_claim: nameClaim, roles_claim: rolesClaim } = signIn.settings;
    // Providers differ in what the ID token carries; the rest comes from the userinfo endpoint.
    if ((claims[nameClaim] === undefined || claims[rolesClaim] === undefined) && signIn.provider.serverMetadata().userinfo_endpoint) {
      try {
        const info = await client.fetchUserInfo(signIn.provider, tokens.access_token, tokens.claims()!.sub);
        claims[nameClaim] ??= info[nameClaim];
        claims[rolesClaim] ??= info[rolesClaim];
      } catch (error) {
        throw refused(req.log, error);
      }
    }
    const name = nameFromClaim(claims[nameClaim]);
    if (name === null) throw forbidden(`The identity provider sent no usable "${nameClaim}" claim for this person, so a decision could not be recorded under their name; check auth.oidc.name_claim and the scopes.`);
    const role = roleFromGroups(claims[rolesClaim], signIn.settings);
    req.log.info({ name, role }, 'signed in');
    return reply.header('set-cookie', [loginCookie('', 0), await sessionCookie(signIn, sessions, { name, role, groups: groupsFromClaim(claims[rolesClaim]) }, now)]).redirect('/', 302);
  });

  app.post('/auth/logout', {
    schema: {
      operationId: 'signOut', summary: 'Sign out: ends the session on every instance; its cookie replayed later answers 401',
      tags: ['auth'], security: [], response: { 204: z.null().describe('Signed out'), 403: errorBody },
    },
  }, async (req, reply) => {
    // A cookie-carrying request from another site cannot sign a person out either.
    if (readCookie(req.headers.cookie, SESSION_COOKIE) !== undefined && req.headers.origin !== signIn.publicOrigin) {
      throw forbidden(`Signing out must come from ${signIn.publicOrigin} (its Origin header ${req.headers.origin ? `was ${req.headers.origin}` : 'was missing'}).`);
    }
    const session = await openSession(signIn, req.headers.cookie, clock.now());
    if (typeof session !== 'string' && (await sessions.endSession(session.id))) req.log.info({ name: session.name }, 'signed out');
    return reply.header('set-cookie', clearedSessionCookie(signIn)).code(204).send(null);
  });
};

/** A refused sign-in: logged with its reason (never a token or a claim), answered 401. */
function refused(log: FastifyBaseLogger, error: unknown): AppError {
  const reason = refusal(error);
  log.warn({ reason }, 'sign-in refused');
  return new AppError('unauthorized', `The sign-in was refused: ${reason}. Start again at /auth/login.`);
}

/** Why openid-client refused a callback, in words: the provider's error, or the check that failed. */
function refusal(error: unknown): string {
  const e = error as Error & { error?: string; error_description?: string };
  if (typeof e.error === 'string') return `${e.error}${e.error_description ? ` (${e.error_description})` : ''}`;
  // openid-client wraps the check that failed ('unexpected JWT "aud" (audience) claim value') in a general message.
  return (e.cause instanceof Error ? e.cause.message : e.message).replace(/\.$/, '');
}
