import type { RouteOptions } from 'fastify';
import { errorBody } from '../../wire/schemas.js';

/** Methods whose requests Fastify reads a body for (a bad or oversized one is refused whatever the route). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The error answers every route shares, by what the route is, so the document lists each status a
 * route can answer without every route spelling them out:
 * - 400 when it reads a body, a query or path parameters (validation, malformed JSON, wrong media type);
 * - 401 unless it is public (`security: []`): no token, a wrong one, an expired sign-in;
 * - 403 always: a `Host` the server does not answer for, a role that may not call it, a cross-site write;
 * - 404 when it names a record in its path;
 * - 413 when it reads a body (`server.body_limit`);
 * - 503 always: the server is shutting down, or its database cannot take writes.
 * A status a route declares itself (409, 429, or one with its own wording) is left as it is.
 */
export function standardErrorStatuses(route: Pick<RouteOptions, 'method' | 'schema'>): number[] {
  const schema = route.schema ?? {};
  const methods = [route.method].flat().map((m) => m.toUpperCase());
  const readsBody = methods.some((m) => BODY_METHODS.has(m));
  const isPublic = Array.isArray(schema.security) && schema.security.length === 0;
  return [
    ...(readsBody || schema.querystring || schema.params ? [400] : []),
    ...(isPublic ? [] : [401]),
    403,
    ...(schema.params ? [404] : []),
    ...(readsBody ? [413] : []),
    503,
  ];
}

/**
 * Fastify `onRoute` hook: adds the shared error answers (the one `Error` schema) to a documented
 * route's response schemas. Answers are checked against them too, so an error body out of shape fails
 * loudly instead of reaching a client.
 */
export function addStandardErrors(route: RouteOptions): void {
  if (!route.schema || route.schema.hide) return;
  const response: Record<string, unknown> = { ...(route.schema.response as Record<string, unknown> | undefined) };
  for (const status of standardErrorStatuses(route)) response[status] ??= errorBody;
  route.schema = { ...route.schema, response };
}
