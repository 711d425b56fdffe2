import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { allowedRoutes } from '../permissions.js';

const me = z.object({
  name: z.string().nullable().describe('The token\'s name (`server.tokens`); null for the single admin token or without authentication.'),
  role: z.enum(['consumer', 'reviewer', 'admin']),
  routes: z.union([z.literal('*'), z.array(z.string())]).describe('What this token may call: `*`, or "METHOD /path" entries.'),
});

/** `GET /me`: who this token is and what it may call, so clients can show what it may not do. */
export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/me', {
    schema: { summary: 'The calling token: name, role and the routes it may call', tags: ['auth'], response: { 200: me } },
    handler: async (req) => ({ name: req.caller.name, role: req.caller.role, routes: allowedRoutes(req.caller.role) }),
  });
};
