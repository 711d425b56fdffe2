import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';

function body(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return { error: details ? { code, message, details } : { code, message } };
}

/** `/body/context/asked_because` in `body` → `context.asked_because`. */
function dotted(instancePath: string): string {
  return instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.') || '(root)';
}

const statusCodes: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
  501: 'not_implemented',
};

/** One error handler for the whole app: every non-2xx answer has the SPEC's error body. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.code(error.status).send(body(error.code, error.message, error.details));
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'body';
      const details = error.validation.map((v) => ({
        path: where === 'body' ? dotted(v.instancePath) : `${where}.${dotted(v.instancePath)}`,
        message: v.message ?? 'is invalid',
      }));
      const message = `The request ${where} is invalid: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`;
      return reply.code(400).send(body('bad_request', message.slice(0, 500), details));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(body('payload_too_large', 'The request body is larger than the server accepts.'));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(400).send(body('bad_request', 'Send the body as JSON with Content-Type: application/json.'));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = statusCodes[status] ?? 'bad_request';
      return reply.code(statusCodes[status] ? status : 400).send(body(code, error.message || 'The request is invalid.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(body('internal', 'Something went wrong on the server; it has been logged.'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(body('not_found', `There is no route ${request.method} ${request.url.split('?')[0]}.`));
  });
}
