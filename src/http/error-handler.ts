import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { StorageUnavailable } from '../store/errors.js';

function body(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return { error: details ? { code, message, details } : { code, message } };
}

/** The API's error body. */
export const errorBody = body;

/**
 * Node's `clientError`: the request could not even be parsed (header section too large, a garbage
 * request line, both Content-Length and Transfer-Encoding). The answer is written on the raw socket, in
 * the API's error shape, and the connection closed.
 */
export function writeClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason] = tooLarge ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const json = JSON.stringify(
    body('bad_request', tooLarge ? 'The request headers are larger than the server accepts.' : 'The request could not be parsed as HTTP.'),
  );
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
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

/** Most a 413 answer reads and drops before answering, and how long it waits for the rest of a body. */
const DRAIN_BYTES = 64 * 1_048_576;
const DRAIN_MS = 10_000;

/** Reads and drops the rest of a request body (at most 64 MiB, 10 s) before an early answer, so the client sees it. */
export function drainBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    timer.unref();
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/** One error handler for the whole app: every non-2xx answer has the API's error body. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
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
      // Read (and drop) the rest of the body first: closing while the client still writes resets the
      // connection, and the client never sees the 413.
      await drainBody(request.raw);
      return reply.code(413).header('connection', 'close').send(body('payload_too_large', 'The request body is larger than the server accepts.'));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(400).send(body('bad_request', 'Send the body as JSON with Content-Type: application/json.'));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = statusCodes[status] ?? 'bad_request';
      return reply.code(statusCodes[status] ? status : 400).send(body(code, error.message || 'The request is invalid.'));
    }
    if (error instanceof StorageUnavailable) {
      // Nothing was written (the transaction rolled back): the client may retry, and /readyz says why.
      request.log.error({ err: error }, 'the database cannot take writes');
      return reply.code(503).header('retry-after', '30').send(body('unavailable', 'The server cannot store anything right now (its database cannot take writes); nothing was changed. Try again later.'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(body('internal', 'Something went wrong on the server; it has been logged.'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(body('not_found', `There is no route ${request.method} ${request.url.split('?')[0]}.`));
  });
}
