import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { consumerView, deliveryPage, deliveryView, kindView, listDeliveriesQuery, registerConsumerBody, registeredConsumer } from '../../wire/consumer-schemas.js';
import { idParams } from '../../wire/schemas.js';
import { actAsOwnConsumer } from '../scope.js';
import type { RouteOptions } from './requests.js';

export const consumerRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.post('/consumers', {
    schema: {
      operationId: 'registerConsumer',
      summary: 'Register (or replace) a webhook consumer; answers its signing secret',
      tags: ['consumers'],
      body: registerConsumerBody,
      response: { 201: registeredConsumer },
    },
    handler: async (req, reply) => {
      actAsOwnConsumer(req.caller, req.body.id, 'register');
      const result = await service.registerConsumer(req.body);
      return reply.code(201).send({ id: result.id, signing_secret: result.signing_secret! });
    },
  });

  app.get('/consumers', {
    schema: { operationId: 'listConsumers', summary: 'Registered consumers (without secrets)', tags: ['consumers'], response: { 200: z.array(consumerView) } },
    handler: async () => service.listConsumers(),
  });

  app.delete('/consumers/:id', {
    schema: { operationId: 'deleteConsumer', summary: 'Unregister a consumer; its pending deliveries are dropped', tags: ['consumers'], params: idParams, response: { 204: z.null() } },
    handler: async (req, reply) => {
      actAsOwnConsumer(req.caller, req.params.id, 'unregister');
      await service.deleteConsumer(req.params.id);
      return reply.code(204).send(null);
    },
  });

  app.get('/kinds', {
    schema: {
      operationId: 'listKinds',
      summary: 'Kinds consumers handle, with their capture schema',
      tags: ['consumers'],
      response: { 200: z.array(kindView) },
    },
    handler: async () => service.listKinds(),
  });

  app.get('/deliveries', {
    schema: {
      operationId: 'listDeliveries',
      summary: 'Webhook and in-process deliveries, newest first (paginated)',
      tags: ['deliveries'],
      querystring: listDeliveriesQuery,
      response: { 200: deliveryPage },
    },
    handler: async (req) => service.listDeliveries(req.query),
  });

  app.post('/deliveries/:id/retry', {
    schema: { operationId: 'retryDelivery', summary: 'Deliver again now (replay), whatever the state', tags: ['deliveries'], params: idParams, response: { 200: deliveryView } },
    handler: async (req) => service.retryDelivery(req.params.id),
  });
};
