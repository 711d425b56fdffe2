import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { meView } from '../../wire/auth-schemas.js';
import { allowedRoutes } from '../permissions.js';

/** `GET /me`: who this token is and what it may call, so clients can show what it may not do. */
export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/me', {
    schema: { operationId: 'getMe', summary: 'The caller: name, role, how they signed in and the routes they may call', tags: ['auth'], response: { 200: meView } },
    handler: async (req) => ({ name: req.caller.name, role: req.caller.role, via: req.caller.via ?? ('none' as const), routes: allowedRoutes(req.caller.role) }),
  });
};
