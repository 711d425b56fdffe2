import type { FastifyError, FastifyInstance } from 'fastify';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors.js';
import { drainBody } from '../http/error-handler.js';

/**
 * JSON-RPC error codes of the MCP Streamable HTTP transport, as the SDK's own transport answers them:
 * -32700 a body that is not JSON or no JSON-RPC message, -32600 a request the transport refuses,
 * -32000 a transport rule broken (no session, wrong content type), -32001 an unknown session.
 */
export class McpTransportError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: -32700 | -32600 | -32603 | -32000 | -32001,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'McpTransportError';
  }
}

/** The body of a transport error: a JSON-RPC error answering no request (`id: null`). */
export const rpcErrorBody = (code: number, message: string) => ({ jsonrpc: '2.0' as const, error: { code, message }, id: null });

export const parseError = () => new McpTransportError(400, -32700, 'Parse error: Invalid JSON');
export const notJsonRpc = () => new McpTransportError(400, -32700, 'Parse error: Invalid JSON-RPC message');
export const sessionRequired = () =>
  new McpTransportError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (start a session with an initialize request without it)');
export const sessionNotFound = () => new McpTransportError(404, -32001, 'Session not found');

/** Whether a parsed body is one JSON-RPC message or a batch of them (what the SDK accepts). */
export function isJsonRpc(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((m) => JSONRPCMessageSchema.safeParse(m).success);
}

/**
 * The error handler of the `/mcp` scope: what goes wrong with the HTTP exchange itself (a body that
 * is no JSON, another content type, a body over the limit, a session rule) is answered as a JSON-RPC
 * error, which is what an MCP client reads. Authentication, Host checks and shutdown keep the API's
 * error shape (the parent handler), as `/api/v1` answers them.
 */
export function answerTransportErrorsAsJsonRpc(app: FastifyInstance): void {
  // text/plain would be parsed as a string: refused like every other type that is not JSON.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const send = (status: number, code: number, message: string) => reply.code(status).type('application/json').send(rpcErrorBody(code, message));
    if (error instanceof McpTransportError) {
      reply.headers(error.headers);
      return send(error.status, error.rpcCode, error.message);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      await drainBody(request.raw);
      reply.header('connection', 'close');
      return send(413, -32000, 'Payload Too Large: the request body is larger than the server accepts');
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return send(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP_')) return send(400, -32700, 'Parse error: Invalid JSON');
    // A body refused before the route (nested too deep): an invalid request.
    if (error instanceof AppError && error.code === 'bad_request') return send(400, -32600, `Invalid Request: ${error.message}`);
    throw error;
  });
}
