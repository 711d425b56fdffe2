import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../../wire/schemas.js';
import { revokeSessionsQuery, revokeSessionsResult, sessionList } from '../../wire/session-schemas.js';
import type { RouteOptions } from './requests.js';

/** The people signed in through the identity provider, and ending their sessions. Admin only. */
export const sessionRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/sessions', {
    schema: {
      operationId: 'listSessions',
      summary: 'The live sign-in sessions',
      description: 'Everyone signed in through the identity provider whose session has not expired, signed out or been ended, the earliest started first. Admin only.',
      tags: ['auth'],
      response: { 200: sessionList },
    },
    handler: async () => ({ items: await service.listSessions() }),
  });

  app.delete('/sessions', {
    schema: {
      operationId: 'revokeSessions',
      summary: 'End every session of one person',
      description: 'Signs a person out on every browser and every instance at once: their session cookies answer 401 from now on. They can sign in again while the identity provider lets them; remove them from the groups there to keep them out. Admin only.',
      tags: ['auth'],
      querystring: revokeSessionsQuery,
      response: { 200: revokeSessionsResult, 400: errorBody },
    },
    handler: async (req) => ({ name: req.query.name, ended: await service.revokeSessions(req.query.name, req.caller.name) }),
  });
};
