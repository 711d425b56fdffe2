import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { AppError, forbidden } from '../errors.js';
import { mayCall, type Role } from './permissions.js';
import type { SignIn } from './sign-in/prepare-sign-in.js';
import { readSession, type SessionBook } from './sign-in/session.js';

export type { Role };

/**
 * Who is calling: a token's name and role, or a signed-in person's. The main token is `admin` with
 * no name. `via` says how the caller proved it (absent: authentication is off).
 */
export interface Caller {
  name: string | null;
  role: Role;
  via?: 'token' | 'session';
  /** With `via: 'session'`: the sign-in session, so a long-lived stream can end when it does. */
  sessionId?: string;
  /** With `via: 'session'`: the groups the identity provider named at sign-in (review rules' `group:` entries). */
  groups?: readonly string[];
}

/** A token the server accepts. */
export interface Credential {
  name: string | null;
  role: Role;
  token: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `bearerAuth` on every `/api/v1` route (admin with no name when authentication is off). */
    caller: Caller;
  }
}

/** With no token configured (and no sign-in) every request is accepted and acts as admin. */
export const OPEN_CALLER: Caller = Object.freeze({ name: null, role: 'admin' });

/** Sign-in for `bearerAuth`: the provider settings and the clock sessions expire by. */
export interface SessionAuth {
  signIn: SignIn;
  clock: Clock;
  /** Where sessions are recorded: a cookie whose session was signed out or revoked is refused. */
  sessions: SessionBook;
  /** Whether a session cookie is accepted here (the API: yes; MCP and metrics: bearer tokens only). */
  acceptCookie: boolean;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bearer-token check with scoped tokens: the token names the caller and its role, and the role
 * decides which routes it may call (`permissions.ts`; 403 otherwise). Both sides are hashed first so
 * every comparison is constant-time whatever the lengths, and every credential is compared, so the
 * time does not tell which one matched. With sign-in configured, a request without a bearer token may
 * instead carry a session cookie: it acts as the signed-in person, and when it changes state its
 * `Origin` must be expertq's own, so another site cannot make a signed-in browser decide.
 */
export function bearerAuth(credentials: readonly Credential[], sessions: SessionAuth | null = null) {
  const table = credentials.map((c) => ({ caller: { name: c.name, role: c.role, via: 'token' } satisfies Caller, digest: digest(c.token) }));
  const open = table.length === 0 && sessions === null;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let caller: Caller | null = open ? OPEN_CALLER : null;
    const header = request.headers.authorization ?? '';
    // `Bearer ` with nothing after it (a script whose token variable is empty) sent no token at all.
    const sent = !/^\s*(Bearer\s*)?$/i.test(header);
    if (caller === null && !sent && sessions?.acceptCookie) caller = await sessionCaller(request, sessions);
    if (caller === null) {
      const match = /^Bearer\s+(.+)$/i.exec(header);
      const presented = digest(match ? match[1]!.trim() : '');
      for (const entry of table) if (timingSafeEqual(presented, entry.digest) && match) caller ??= entry.caller;
    }
    if (caller === null) {
      // RFC 6750: say which scheme, and whether a token was sent at all.
      reply.header('www-authenticate', sent ? 'Bearer error="invalid_token"' : 'Bearer');
      throw new AppError(
        'unauthorized',
        sent
          ? 'The bearer token sent is not one this server accepts.'
          : `A valid bearer token is required: send Authorization: Bearer <token>${sessions?.acceptCookie ? ', or sign in at /auth/login' : ''}.`,
      );
    }
    request.caller = caller;
    const route = request.routeOptions.url;
    if (route !== undefined && !mayCall(caller.role, request.method, route)) {
      if (caller.via === 'session') {
        throw forbidden(caller.role === 'none'
          ? `You are signed in as ${caller.name}, but you are in none of the groups that may review, so you may not call ${request.method} ${route.replace(/^\/api\/v1/, '')}; ask an administrator to add you to a reviewer group.`
          : `You are signed in as ${caller.name} with the ${caller.role} role, which may not call ${request.method} ${route.replace(/^\/api\/v1/, '')}.`);
      }
      throw forbidden(`This token${caller.name ? ` (${caller.name})` : ''} has the ${caller.role} role, which may not call ${request.method} ${route.replace(/^\/api\/v1/, '')}.`);
    }
  };
}

/** The signed-in person a session cookie names, null without one; 401 for an expired, unreadable or ended one, 403 for a cross-site write. */
async function sessionCaller(request: FastifyRequest, { signIn, clock, sessions }: SessionAuth): Promise<Caller | null> {
  const session = await readSession(signIn, sessions, request.headers.cookie, clock.now());
  if (session === 'absent') return null;
  if (session === 'invalid') throw new AppError('unauthorized', 'Your sign-in has expired or is no longer valid; sign in again at /auth/login.');
  if (session === 'ended') throw new AppError('unauthorized', 'This sign-in has ended: you signed out, or an administrator ended your sessions; sign in again at /auth/login.');
  if (!SAFE_METHODS.has(request.method) && request.headers.origin !== signIn.publicOrigin) {
    throw forbidden(`A change made with a sign-in cookie must come from ${signIn.publicOrigin} (its Origin header ${request.headers.origin ? `was ${request.headers.origin}` : 'was missing'}); use expertq's own pages, or a bearer token.`);
  }
  return { name: session.name, role: session.role, via: 'session', sessionId: session.id, groups: session.groups };
}
