import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../errors.js';
import { mayCall, type Role } from './permissions.js';

export type { Role };

/** Who is calling: a token's name and role. The main token is `admin` with no name. */
export interface Caller {
  name: string | null;
  role: Role;
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

/** With no token configured every request is accepted and acts as admin. */
export const OPEN_CALLER: Caller = Object.freeze({ name: null, role: 'admin' });

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer-token check with scoped tokens: the token names the
 * caller and its role, and the role decides which routes it may call (`permissions.ts`; 403 otherwise).
 * Both sides are hashed first so every comparison is constant-time whatever the lengths, and every
 * credential is compared, so the time does not tell which one matched.
 */
export function bearerAuth(credentials: readonly Credential[]) {
  const table = credentials.map((c) => ({ caller: { name: c.name, role: c.role } satisfies Caller, digest: digest(c.token) }));
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let caller: Caller | null = table.length === 0 ? OPEN_CALLER : null;
    const header = request.headers.authorization ?? '';
    // `Bearer ` with nothing after it (a script whose token variable is empty) sent no token at all.
    const sent = !/^\s*(Bearer\s*)?$/i.test(header);
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
          : 'A valid bearer token is required: send Authorization: Bearer <token>.',
      );
    }
    request.caller = caller;
    const route = request.routeOptions.url;
    if (route !== undefined && !mayCall(caller.role, request.method, route)) {
      throw forbidden(`This token${caller.name ? ` (${caller.name})` : ''} has the ${caller.role} role, which may not call ${request.method} ${route.replace(/^\/api\/v1/, '')}.`);
    }
  };
}
