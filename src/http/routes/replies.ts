import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditEntry, auditQuery, errorBody, replyBody, replyResult } from '../../wire/schemas.js';
import type { RouteOptions } from './requests.js';

export const replyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.post('/replies', {
    schema: {
      operationId: 'receiveReply',
      summary: 'An expert’s reply, from any transport (answer, mute, skip or unmute)',
      tags: ['replies'],
      body: replyBody,
      response: { 200: replyResult, 404: errorBody },
    },
    handler: async (req) => service.receiveReply(req.body),
  });

  app.get('/audit', {
    schema: {
      operationId: 'getAudit',
      summary: 'Every step of a request, or an expert’s own trail (away, back), in order',
      tags: ['audit'],
      querystring: auditQuery,
      response: { 200: z.array(auditEntry), 404: errorBody },
    },
    handler: async (req) => (req.query.expert_id !== undefined ? service.expertAudit(req.query.expert_id) : service.audit(req.query.request_id!)),
  });
};
