import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer-token check (seed: Authentication). Both sides are hashed first so the comparison is
 * constant-time whatever the lengths. With no token configured, every request is accepted.
 */
export function bearerAuth(token: string | undefined) {
  const expected = token === undefined ? null : digest(token);
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    if (expected === null) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      throw new AppError('unauthorized', 'A valid bearer token is required: send Authorization: Bearer <token>.');
    }
  };
}
