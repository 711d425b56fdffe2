import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { bearerAuth, type Caller, type Credential, type SessionAuth } from '../http/auth.js';
import type { HostPolicy } from '../http/host-check.js';
import type { ExpertqService } from '../service/expertq-service.js';
import { serviceBackend } from './service-backend.js';
import { answerTransportErrorsAsJsonRpc, isJsonRpc, McpTransportError, notJsonRpc, parseError, sessionNotFound, sessionRequired } from './transport-errors.js';

export interface McpRouteOptions {
  service: ExpertqService;
  credentials: readonly Credential[];
  /** With sign-in configured MCP is never open, though it takes bearer tokens only. */
  signInAuth?: SessionAuth | null;
  /** The app's Host policy: a session also accepts the Host it was opened with when the policy allows that name. */
  hosts?: HostPolicy;
  progressEveryMs?: number;
  /** A session unused this long is closed (default 30 minutes). */
  idleMs?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  caller: Caller;
  lastUsed: number;
}

/**
 * Streamable HTTP at `/mcp`, behind the same bearer token as `/api/v1` (401 in the API's error
 * shape without it), with the SDK's Host and Origin checks on against DNS rebinding. Sessions (the
 * SDK's `Mcp-Session-Id`) keep what the client said at `initialize` (its name is the default
 * `decided_by`) and which token opened them: a session answers only the token that opened it. Idle
 * sessions are closed; a client that comes back with a closed session gets 404 and initializes again,
 * as the protocol says. Errors of the transport itself (bad JSON, a missing or unknown session) are
 * JSON-RPC errors, as the SDK's transport answers them.
 */
const loadSessionParts = () => Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./create-mcp-server.js')]);
let loading: ReturnType<typeof loadSessionParts> | undefined;
/** The MCP server and its transport, loaded when the first session opens: a process nobody reaches over MCP never loads them. */
function sessionParts(): ReturnType<typeof loadSessionParts> {
  loading ??= loadSessionParts();
  return loading;
}

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const sessions = new Map<string, Session>();
  const idleMs = options.idleMs ?? 30 * 60_000;
  const sweep = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, s] of sessions) if (s.lastUsed < cutoff) void close(id);
  }, 60_000);
  sweep.unref();
  const close = async (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    await s?.transport.close();
    await s?.server.close();
  };
  // At shutdown the sessions' GET streams end at once (tool calls in flight still answer: their waits
  // end with the state they have); an open stream would otherwise hold the server's close.
  const endStreams = () => {
    for (const s of sessions.values()) s.transport.closeStandaloneSSEStream();
  };
  options.service.stoppingSignal.addEventListener('abort', endStreams, { once: true });
  app.addHook('onClose', async () => {
    options.service.stoppingSignal.removeEventListener('abort', endStreams);
    clearInterval(sweep);
    await Promise.all([...sessions.keys()].map(close));
  });
  app.addHook('onRequest', bearerAuth(options.credentials, options.signInAuth ?? null));
  answerTransportErrorsAsJsonRpc(app);

  // The SDK compares whole Host values: loopback on this port, plus the name this session was opened
  // by when `server.allowed_hosts` or `server.public_url` allows it (a proxy's name, with any port).
  const hostsFor = (req: FastifyRequest) => {
    const port = req.socket.localPort;
    const own = req.headers.host;
    const loopback = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    return own !== undefined && options.hosts?.allows(own) && !loopback.includes(own) ? [...loopback, own] : loopback;
  };

  /** The session a request names, checked against the token that opened it. */
  const sessionOf = (req: FastifyRequest): Session | undefined => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string') return undefined;
    const session = sessions.get(id);
    // Closed after being idle too long, or never opened: the client initializes a new one.
    if (!session) throw sessionNotFound();
    if (session.caller.name !== req.caller.name || session.caller.role !== req.caller.role) {
      throw new McpTransportError(403, -32000, 'Forbidden: this MCP session was opened with another token.');
    }
    session.lastUsed = Date.now();
    return session;
  };

  const handle = async (req: FastifyRequest, reply: FastifyReply, transport: StreamableHTTPServerTransport) => {
    reply.hijack();
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };

  app.post('/mcp', { schema: { hide: true } }, async (req, reply) => {
    // An empty body reaches here as none; the transport must never read the (consumed) stream itself.
    if (req.body === undefined) throw parseError();
    const existing = sessionOf(req);
    if (existing) return handle(req, reply, existing.transport);
    if (!isJsonRpc(req.body)) throw notJsonRpc();
    if (!isInitializeRequest(req.body)) throw sessionRequired();
    const caller = req.caller;
    const hosts = hostsFor(req);
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await sessionParts();
    const server = createMcpServer(serviceBackend(options.service, caller), {
      role: caller.role,
      ...(caller.role === 'consumer' && caller.name ? { defaultConsumer: caller.name } : {}),
      ...(options.progressEveryMs !== undefined ? { progressEveryMs: options.progressEveryMs } : {}),
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, caller, lastUsed: Date.now() });
      },
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
      allowedOrigins: hosts.flatMap((h) => [`http://${h}`, `https://${h}`]),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return handle(req, reply, transport);
  });

  // GET opens the session's stream for server messages; DELETE ends the session.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (req, reply) => {
        const session = sessionOf(req);
        if (!session) throw sessionRequired();
        await handle(req, reply, session.transport);
        if (method === 'DELETE' && session.transport.sessionId) sessions.delete(session.transport.sessionId);
      },
    });
  }

  // Streamable HTTP has no other method.
  app.route({
    method: ['PUT', 'PATCH'],
    url: '/mcp',
    schema: { hide: true },
    handler: async () => {
      throw new McpTransportError(405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    },
  });
};
