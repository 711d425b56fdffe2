import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RouteOptions } from './requests.js';

const instanceView = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  version: z.string(),
  started_at: z.string(),
  last_seen: z.string(),
  registry_hash: z.string().describe('A short hash of the expert registry the instance runs; instances reading different config files differ here'),
  live: z.boolean().describe('Refreshed within the last 30 seconds'),
  this_instance: z.boolean().describe('The instance that answered this call'),
});

export const instanceRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/instances', {
    schema: {
      operationId: 'listInstances',
      summary: 'The instances serving from this database',
      description:
        'Each running instance refreshes its row every 10 seconds; one not seen for 30 seconds is listed as not live, and forgotten after a day. `warnings` says when live instances run different versions or expert registries. Admin only.',
      tags: ['operations'],
      response: { 200: z.object({ items: z.array(instanceView), warnings: z.array(z.string()) }) },
    },
    handler: async () => service.listInstances(),
  });
};
