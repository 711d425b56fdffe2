import type { Role } from '../../service/sessions/index.js';
import type { SignIn } from './prepare-sign-in.js';
import type { SessionRole } from './read-identity.js';
import { cookieHeader, readCookie, seal, SESSION_COOKIE, unseal } from './sealed-cookies.js';

/** A signed-in person: the session's id, the name the provider vouched for, the role their groups grant, and when it ends (ms). */
export interface Session {
  id: string;
  name: string;
  role: Role;
  /** The groups their provider named at sign-in (review rules' `group:` entries); none in a cookie from before. */
  groups: string[];
  expiresAt: number;
}

/**
 * Where sessions are recorded (the service, in the database every instance shares): the cookie names
 * a session, and only a recorded, live one signs anyone in, so signing out ends it everywhere.
 */
export interface SessionBook {
  startSession(who: { name: string; role: SessionRole }, expiresAt: number): Promise<string>;
  isSessionLive(id: string): Promise<boolean>;
  endSession(id: string): Promise<boolean>;
}

const ROLES: ReadonlySet<string> = new Set<Role>(['none', 'reviewer', 'admin']);

/** Records a session for `who` until `now + session_ttl`: the `Set-Cookie` value that signs them in. */
export async function sessionCookie(signIn: SignIn, book: SessionBook, who: { name: string; role: SessionRole; groups?: readonly string[] }, now: number): Promise<string> {
  const expiresAt = now + signIn.settings.session_ttl;
  const sid = await book.startSession({ name: who.name, role: who.role }, expiresAt);
  const value = await seal({ sid, name: who.name, role: who.role, groups: [...(who.groups ?? [])] }, signIn.keys.session, now, expiresAt);
  return cookieHeader(SESSION_COOKIE, value, { path: '/', maxAge: Math.floor(signIn.settings.session_ttl / 1000), secure: signIn.secureCookies });
}

/** The `Set-Cookie` value that signs out. */
export function clearedSessionCookie(signIn: SignIn): string {
  return cookieHeader(SESSION_COOKIE, '', { path: '/', maxAge: 0, secure: signIn.secureCookies });
}

/**
 * The session a `Cookie` header carries, as the cookie says, without asking whether it was ended:
 * `absent` without a session cookie, `invalid` when it cannot be opened (expired, altered, sealed with
 * another key as after the secret was rotated, or from a version that did not record sessions).
 */
export async function openSession(signIn: SignIn, header: string | undefined, now: number): Promise<Session | 'absent' | 'invalid'> {
  const value = readCookie(header, SESSION_COOKIE);
  if (!value) return 'absent';
  const claims = await unseal(value, signIn.keys.session, now);
  if (!claims || typeof claims.sid !== 'string' || typeof claims.name !== 'string' || typeof claims.role !== 'string' || !ROLES.has(claims.role)) return 'invalid';
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
  return { id: claims.sid, name: claims.name, role: claims.role as Role, groups, expiresAt: claims.exp! * 1000 };
}

/** `openSession`, and `ended` for a session signed out or revoked since the cookie was set. */
export async function readSession(signIn: SignIn, book: SessionBook, header: string | undefined, now: number): Promise<Session | 'absent' | 'invalid' | 'ended'> {
  const session = await openSession(signIn, header, now);
  if (typeof session === 'string') return session;
  return (await book.isSessionLive(session.id)) ? session : 'ended';
}
