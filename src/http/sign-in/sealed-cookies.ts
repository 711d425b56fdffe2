import { hkdfSync } from 'node:crypto';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';
import { EncryptJWT, jwtDecrypt, type JWTPayload } from 'jose';

/** The cookie holding a signed-in person's session, and the one holding a sign-in in progress. */
export const SESSION_COOKIE = 'expertq_session';
export const LOGIN_COOKIE = 'expertq_login';

/**
 * The two keys cookies are sealed with, derived from `auth.session_secret_env` with HKDF so each
 * cookie kind has its own key: a sign-in cookie can never be replayed as a session.
 */
export interface CookieKeys {
  session: Uint8Array;
  login: Uint8Array;
}

export function deriveCookieKeys(secret: string): CookieKeys {
  const derive = (purpose: string) => new Uint8Array(hkdfSync('sha256', secret, 'expertq', `expertq ${purpose} cookie v1`, 32));
  return { session: derive('session'), login: derive('sign-in') };
}

/** Encrypts claims into a compact JWE (direct key, AES-256-GCM) that expires at `expiresAt` (ms). */
export async function seal(claims: JWTPayload, key: Uint8Array, now: number, expiresAt: number): Promise<string> {
  return new EncryptJWT(claims)
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .encrypt(key);
}

/** The claims of a sealed cookie, or null when it was not sealed with this key, was altered or has expired. */
export async function unseal(token: string, key: Uint8Array, now: number): Promise<JWTPayload | null> {
  try {
    const { payload } = await jwtDecrypt(token, key, {
      currentDate: new Date(now),
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      requiredClaims: ['exp'],
    });
    return payload;
  } catch {
    return null;
  }
}

/** One cookie's value from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  return parseCookie(header ?? '')[name];
}

export interface CookieOptions {
  path: string;
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  secure: boolean;
}

/** A `Set-Cookie` value: always HttpOnly and SameSite=Lax (the provider's redirect back is a top-level GET). */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  return serializeCookie(name, value, { path: options.path, maxAge: options.maxAge, httpOnly: true, sameSite: 'lax', secure: options.secure });
}
