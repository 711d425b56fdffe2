import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** Marks, between the two transforms, an operation whose body may be left out. */
const OPTIONAL_BODY = 'x-expertq-optional-body';

const acceptsNoBody = (body: unknown): boolean =>
  typeof (body as { safeParse?: unknown } | undefined)?.safeParse === 'function' && (body as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success;

/**
 * The zod transform, noting routes whose body schema takes no body at all (cancel, mute): the
 * swagger plugin documents every body as required, and `openApiObject` says otherwise for those.
 */
export const openApiTransform: SwaggerTransform = (data) => {
  const result = jsonSchemaTransform(data as Parameters<typeof jsonSchemaTransform>[0]);
  if (!acceptsNoBody(data.schema?.body)) return result;
  return { ...result, schema: { ...result.schema, [OPTIONAL_BODY]: true } };
};

type Operation = { requestBody?: { required?: boolean }; [OPTIONAL_BODY]?: boolean };

export const openApiObject: SwaggerTransformObject = (document) => {
  const result = jsonSchemaTransformObject(document) as { paths?: Record<string, Record<string, Operation>> };
  for (const path of Object.values(result.paths ?? {})) {
    for (const op of Object.values(path)) {
      if (typeof op !== 'object' || op === null || !(OPTIONAL_BODY in op)) continue;
      delete op[OPTIONAL_BODY];
      if (op.requestBody) op.requestBody.required = false;
    }
  }
  return result as ReturnType<SwaggerTransformObject>;
};

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
