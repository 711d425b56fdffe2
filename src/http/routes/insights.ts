import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { insightsQuery, insightsView } from '../../wire/insight-schemas.js';
import type { RouteOptions } from './requests.js';

export const insightRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/insights', {
    schema: {
      operationId: 'getInsights',
      summary: 'What the service did in a window: requests by outcome, times to answer and decide, load per expert, library reuse',
      description:
        'Reviewer or admin. Read from hourly rollups kept as events happen, so a window of up to three years costs the same at any history size. ' +
        'Times are in seconds, read from fixed buckets: each percentile is within 10 % of the true value. See docs/insights.md for how each figure is counted.',
      tags: ['insights'],
      querystring: insightsQuery,
      response: { 200: insightsView },
    },
    handler: async (req) => service.insights(req.query),
  });
};
