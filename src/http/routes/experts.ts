import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, expertView, idParams, putExpertsBody } from '../schemas.js';
import type { RouteOptions } from './requests.js';

export const expertRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/experts', {
    schema: { summary: 'The expert registry with live state', tags: ['experts'], response: { 200: z.array(expertView) } },
    handler: async () => service.listExperts(),
  });

  app.put('/experts', {
    schema: {
      summary: 'Replace the whole registry and rewrite the experts section of the config file',
      tags: ['experts'],
      body: putExpertsBody,
      response: { 200: z.array(expertView), 400: errorBody },
    },
    handler: async (req) => service.replaceExperts(req.body),
  });

  app.post('/experts/:id/unmute', {
    schema: { summary: 'Clear an expert’s mute', tags: ['experts'], params: idParams, response: { 200: expertView, 404: errorBody } },
    handler: async (req) => service.unmuteExpert(req.params.id),
  });
};
