import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SESSION_COOKIE } from '../sign-in/sealed-cookies.js';
import { addStandardErrors } from './standard-errors.js';
import { tidyDocument } from './tidy-document.js';

/**
 * The OpenAPI document, built from the route schemas: call before any route is registered (the
 * shared error answers are added to each route as it is declared).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', addStandardErrors);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'expertq', version: '1', description: 'Ask named human experts; get human-reviewed answers.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API token: the admin token, or one of `server.tokens` with its role.' },
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'With sign-in configured: the cookie `/auth/callback` sets. A change sent with it must come from expertq’s own origin.' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => tidyDocument(jsonSchemaTransformObject(input)),
  });
}

/**
 * The document as served: its `servers` entry is `server.public_url` when set, else the address this
 * request reached the server on (host and port as the client used them).
 */
export function servedDocument(app: FastifyInstance, req: FastifyRequest, publicUrl: string | undefined): Record<string, unknown> {
  const { openapi, info, ...rest } = app.swagger() as unknown as Record<string, unknown>;
  const url = (publicUrl ?? `${req.protocol}://${req.host || 'localhost'}`).replace(/\/$/, '');
  return { openapi, info, servers: [{ url }], ...rest };
}
