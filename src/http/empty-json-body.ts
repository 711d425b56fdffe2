import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them, except that an empty one (a client that sets
 * `Content-Type: application/json` on every call) is no body: a route whose body is optional takes
 * it, and one that needs a body says which fields are missing.
 */
export function treatEmptyJsonAsNoBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body.toString();
    if (text === '') done(null, undefined);
    else void parse(req, text, done);
  });
}
