import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../wire/schemas.js';
import type { RouteOptions } from './requests.js';

const sessionView = z.object({
  name: z.string().describe('The name the identity provider vouched for (`auth.oidc.name_claim`)'),
  role: z.enum(['none', 'reviewer', 'admin']).describe('The role the person\'s groups granted when they signed in'),
  started_at: z.string(),
  expires_at: z.string(),
  last_seen: z.string().describe('The last request made with the session, to within five minutes'),
});

const revokeQuery = z.object({
  name: z.string().trim().min(1).max(200).describe('The person whose sessions end, exactly as `GET /sessions` lists them'),
});

/** The people signed in through the identity provider, and ending their sessions. Admin only. */
export const sessionRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/sessions', {
    schema: {
      operationId: 'listSessions',
      summary: 'The live sign-in sessions',
      description: 'Everyone signed in through the identity provider whose session has not expired, signed out or been ended, the earliest started first. Admin only.',
      tags: ['auth'],
      response: { 200: z.object({ items: z.array(sessionView) }) },
    },
    handler: async () => ({ items: await service.listSessions() }),
  });

  app.delete('/sessions', {
    schema: {
      operationId: 'revokeSessions',
      summary: 'End every session of one person',
      description: 'Signs a person out on every browser and every instance at once: their session cookies answer 401 from now on. They can sign in again while the identity provider lets them; remove them from the groups there to keep them out. Admin only.',
      tags: ['auth'],
      querystring: revokeQuery,
      response: { 200: z.object({ name: z.string(), ended: z.number().int().describe('How many live sessions were ended (0: none was live)') }), 400: errorBody },
    },
    handler: async (req) => ({ name: req.query.name, ended: await service.revokeSessions(req.query.name, req.caller.name) }),
  });
};
