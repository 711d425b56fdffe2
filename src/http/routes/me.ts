import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { allowedRoutes } from '../permissions.js';

const me = z.object({
  name: z.string().nullable().describe('The token\'s name (`server.tokens`) or the signed-in person\'s; null for the single admin token or without authentication.'),
  role: z.enum(['none', 'consumer', 'reviewer', 'admin']).describe('`none`: signed in, but in no reviewer or admin group.'),
  via: z.enum(['token', 'session', 'none']).describe('How the caller proved who they are: a bearer token, a sign-in cookie, or nothing (authentication is off).'),
  routes: z.union([z.literal('*'), z.array(z.string())]).describe('What this token may call: `*`, or "METHOD /path" entries.'),
});

/** `GET /me`: who this token is and what it may call, so clients can show what it may not do. */
export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/me', {
    schema: { operationId: 'getMe', summary: 'The caller: name, role, how they signed in and the routes they may call', tags: ['auth'], response: { 200: me } },
    handler: async (req) => ({ name: req.caller.name, role: req.caller.role, via: req.caller.via ?? ('none' as const), routes: allowedRoutes(req.caller.role) }),
  });
};
