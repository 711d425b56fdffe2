import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { instanceList } from '../../wire/instance-schemas.js';
import type { RouteOptions } from './requests.js';

export const instanceRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/instances', {
    schema: {
      operationId: 'listInstances',
      summary: 'The instances serving from this database',
      description:
        'Each running instance refreshes its row every 10 seconds; one not seen for 30 seconds is listed as not live, and forgotten after a day. `warnings` says when live instances run different versions or expert registries. Admin only.',
      tags: ['operations'],
      response: { 200: instanceList },
    },
    handler: async () => service.listInstances(),
  });
};
