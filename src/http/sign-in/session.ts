import type { Role } from '../../service/operations.js';
import type { SignIn } from './prepare-sign-in.js';
import { cookieHeader, readCookie, seal, SESSION_COOKIE, unseal } from './sealed-cookies.js';

/** A signed-in person: the name the provider vouched for, the role their groups grant, and when it ends (ms). */
export interface Session {
  name: string;
  role: Role;
  expiresAt: number;
}

const ROLES: ReadonlySet<string> = new Set<Role>(['none', 'reviewer', 'admin']);

/** The `Set-Cookie` value that signs a person in until `now + session_ttl`. */
export async function sessionCookie(signIn: SignIn, who: { name: string; role: Role }, now: number): Promise<string> {
  const expiresAt = now + signIn.settings.session_ttl;
  const value = await seal({ name: who.name, role: who.role }, signIn.keys.session, now, expiresAt);
  return cookieHeader(SESSION_COOKIE, value, { path: '/', maxAge: Math.floor(signIn.settings.session_ttl / 1000), secure: signIn.secureCookies });
}

/** The `Set-Cookie` value that signs out. */
export function clearedSessionCookie(signIn: SignIn): string {
  return cookieHeader(SESSION_COOKIE, '', { path: '/', maxAge: 0, secure: signIn.secureCookies });
}

/**
 * The session a `Cookie` header carries: `absent` without a session cookie, `invalid` when it cannot
 * be opened (expired, altered, or sealed with another key: the secret was rotated).
 */
export async function readSession(signIn: SignIn, header: string | undefined, now: number): Promise<Session | 'absent' | 'invalid'> {
  const value = readCookie(header, SESSION_COOKIE);
  if (!value) return 'absent';
  const claims = await unseal(value, signIn.keys.session, now);
  if (!claims || typeof claims.name !== 'string' || typeof claims.role !== 'string' || !ROLES.has(claims.role)) return 'invalid';
  return { name: claims.name, role: claims.role as Role, expiresAt: claims.exp! * 1000 };
}
