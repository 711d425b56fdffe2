import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ExpertqService } from '../../service/expertq-service.js';
import { cancelBody, listRequestsQuery, requestPage, waitForRequestQuery } from '../../wire/request-schemas.js';
import { errorBody, idParams, requestRecord, submitRequestBody, submitResult } from '../../wire/schemas.js';
import { normalizeTopic } from '../../core/normalize-topic.js';
import { actAsOwnConsumer, ownRequest } from '../scope.js';

export interface RouteOptions {
  service: ExpertqService;
}

export const requestRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.post('/requests', {
    schema: {
      operationId: 'submitRequest',
      summary: 'Submit a question for an expert',
      tags: ['requests'],
      body: submitRequestBody,
      description:
        'A consumer may submit at most its daily quota of new requests (max_requests_per_day, else the server default), counted from midnight in the organisation\'s time zone. Beyond it the answer is 429 rate_limited with Retry-After (seconds until that midnight) and resets_at in the details; nothing is stored. A submit answered with an existing request (deduplicated) is not counted.',
      response: { 200: submitResult, 429: errorBody },
    },
    handler: async (req) => {
      actAsOwnConsumer(req.caller, req.body.consumer_id, 'submit');
      return service.submitRequest(req.body);
    },
  });

  app.get('/requests', {
    schema: {
      operationId: 'listRequests',
      summary: 'List requests, newest first (paginated)',
      tags: ['requests'],
      querystring: listRequestsQuery,
      response: { 200: requestPage },
    },
    handler: async (req) => {
      // A consumer token lists its own requests only.
      const consumerId = req.caller.role === 'consumer' ? req.caller.name! : req.query.consumer_id;
      if (req.query.consumer_id !== undefined) actAsOwnConsumer(req.caller, req.query.consumer_id, 'list requests');
      const { status, topic, q, limit, cursor } = req.query;
      return service.listRequests({ status, consumer_id: consumerId, topic: topic === undefined ? undefined : normalizeTopic(topic), text: q, limit, before: cursor });
    },
  });

  app.get('/requests/:id', {
    schema: { operationId: 'getRequest', summary: 'Read a request', tags: ['requests'], params: idParams, response: { 200: requestRecord } },
    handler: async (req) => ownRequest(req.caller, await service.getRequest(req.params.id)),
  });

  app.get('/requests/:id/wait', {
    schema: {
      operationId: 'waitForRequest',
      summary: 'Wait (at most timeout_s, ≤ 50 s) for a request to be accepted, rejected or failed; answers the record then',
      description:
        'Answers as soon as the request is decided or failed, else at timeout_s with its current state. With changed_from (the updated_at of the record you have), any change answers at once too, so a client can follow each step. Used by `expertq mcp` (wait_for_answer), `expertq ask --wait` and by scripts that prefer long polling to webhooks.',
      tags: ['requests'],
      params: idParams,
      querystring: waitForRequestQuery,
      response: { 200: requestRecord },
    },
    handler: async (req, reply) => {
      ownRequest(req.caller, await service.getRequest(req.params.id));
      // A client that hangs up stops the wait.
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      req.log.debug({ request_id: req.params.id }, 'long poll opened');
      return ownRequest(req.caller, await service.waitForDecision(req.params.id, req.query.timeout_s * 1000, abort.signal, req.query.changed_from));
    },
  });

  app.post('/requests/:id/cancel', {
    schema: {
      operationId: 'cancelRequest',
      summary: 'Cancel an open request (fails it with reason cancelled)',
      tags: ['requests'],
      params: idParams,
      body: cancelBody,
      response: { 200: requestRecord },
    },
    handler: async (req) => {
      ownRequest(req.caller, await service.getRequest(req.params.id));
      const by = req.caller.name ?? req.body?.cancelled_by ?? 'anonymous';
      return service.cancelRequest(req.params.id, `api:${by}`);
    },
  });
};
