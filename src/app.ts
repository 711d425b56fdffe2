import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { bearerAuth, type Credential, type SessionAuth } from './http/auth.js';
import { authRoutes } from './http/sign-in/auth-routes.js';
import type { SignIn } from './http/sign-in/prepare-sign-in.js';
import { healthRoutes } from './http/routes/health.js';
import { hostCheck, hostPolicy } from './http/host-check.js';
import { securityHeaderValues } from './http/security-headers.js';
import { meRoutes } from './http/routes/me.js';
import { mcpRoutes } from './mcp/http-route.js';
import { createMetrics } from './metrics/create-metrics.js';
import { badRequest } from './errors.js';
import { errorBody, installErrorHandler, writeClientError } from './http/error-handler.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './http/json-depth.js';
import { registerOpenApi, servedDocument } from './http/openapi/register-openapi.js';
import { treatEmptyJsonAsNoBody } from './http/empty-json-body.js';
import { MAX_ID_LENGTH } from './wire/schemas.js';
import { serializeResponse } from './http/serialize-response.js';
import { answerRoutes } from './http/routes/answers.js';
import { chatRoutes, type ChatEvents } from './http/routes/chat.js';
import { emailRoutes, type EmailEvents } from './http/routes/email.js';
import { teamsRoutes, type TeamsEvents } from './http/routes/teams.js';
import { consumerRoutes } from './http/routes/consumers.js';
import { expertRoutes } from './http/routes/experts.js';
import { instanceRoutes } from './http/routes/instances.js';
import { insightRoutes } from './http/routes/insights.js';
import { proposalRoutes } from './http/routes/proposals.js';
import { queueRoutes } from './http/routes/queue.js';
import { replyRoutes } from './http/routes/replies.js';
import { requestRoutes, type RouteOptions } from './http/routes/requests.js';
import { sessionRoutes } from './http/routes/sessions.js';
import type { ExpertqService } from './service/expertq-service.js';

export interface AppOptions {
  service: ExpertqService;
  /** The tokens the API accepts (the main admin token and `server.tokens`); none disables authentication. */
  credentials: readonly Credential[];
  logger: Logger;
  bodyLimit?: number;
  /** How often the queue stream compares the store for changes made by another process (default 1 s). */
  queuePollMs?: number;
  /** How often idle queue streams get a keep-alive, and those of ended sessions end (default 10 s). */
  queueHeartbeatMs?: number;
  /** For `/readyz`: `server.tick_ms`, and whether this process runs the scheduler timer. */
  health?: { tickMs: number; schedulerRunning: () => boolean };
  /** `server.public_metrics`: serve `/metrics` without the bearer token (default: admin token needed). */
  publicMetrics?: boolean;
  /** `server.allowed_hosts`: the `Host` names answered besides loopback (always checked with authentication off). */
  allowedHosts?: readonly string[];
  /** `server.public_url`: its host is always answered, https turns on HSTS, and it is the OpenAPI
   * document's server (absent: the address each request reached). */
  publicUrl?: string | undefined;
  /** MCP over Streamable HTTP: the progress cadence. */
  mcp?: { progressEveryMs?: number };
  /** The chat transport's HTTP event handler (`--transport chat`); null or absent: 501. */
  chat?: ChatEvents | null;
  /** The email channel's inbound route and unsubscribe links; null or absent: off. */
  email?: EmailEvents | null;
  /** The Teams channel's messaging endpoint (null: `/teams/messages` answers 404). */
  teams?: TeamsEvents | null;
  /** Sign-in through an OpenID provider (`auth.oidc`), prepared at start-up; null or absent: tokens only. */
  signIn?: SignIn | null;
}

/** Where the approval UI's built files are: `web/` at the package root, from `src/` or `dist/`. */
export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'web');

/** Builds the Fastify app: routes, auth, errors, OpenAPI and the UI. Never listens. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1_048_576,
    // Ids are up to 200 characters; percent-encoded, a character can take 12 (a 4-byte UTF-8 one).
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 12 },
    // Errors Fastify raises before routing (a malformed URL) get the API's error body too.
    frameworkErrors: (error, _req, reply) => {
      void (reply as unknown as FastifyReply).code(400).send(errorBody('bad_request', `The request URL is not valid: ${error.message}`));
    },
    // Errors below HTTP (a header section over the limit, a garbage request line, both Content-Length
    // and Transfer-Encoding): Node would answer with a bare 400; answer in the API's error shape.
    clientErrorHandler: writeClientError,
    // One log line per domain event (submitted, replied, decided) rather than two per HTTP call.
    logController: new LogController({ disableRequestLogging: true }),
    // Requests that arrive while shutting down are answered by the hook below, in our error shape.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializeResponse);
  installErrorHandler(app);
  treatEmptyJsonAsNoBody(app);
  app.decorateRequest('caller', null as never);
  const signIn = options.signIn ?? null;
  // First, so every answer carries the same browser security headers, refusals included.
  const security = securityHeaderValues({ publicUrl: options.publicUrl, signIn });
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(security);
    done();
  });
  const hosts = hostPolicy({ allowedHosts: options.allowedHosts, publicUrl: options.publicUrl, authOff: options.credentials.length === 0 && signIn === null });
  app.addHook('onRequest', hostCheck(hosts));
  app.addHook('onRequest', async (_req, reply) => {
    if (!options.service.shuttingDown) return;
    // Connection: close, so a keep-alive client reconnects (to the next server) instead of reusing this socket.
    return reply.code(503).header('retry-after', '5').header('connection', 'close')
      .send(errorBody('unavailable', 'The server is shutting down; try again in a moment.'));
  });
  const metrics = createMetrics(options.service);
  app.addHook('onResponse', async (req, reply) => {
    metrics.observeHttp(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addHook('onClose', async () => metrics.close());
  // Before any validation or recursive code runs: a body nested thousands of levels deep is refused here.
  app.addHook('preValidation', async (req) => {
    if (nestsDeeperThan(req.body)) throw badRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  });

  await registerOpenApi(app);

  const routeOptions: RouteOptions = { service: options.service };
  // The API takes a sign-in cookie; MCP and metrics take bearer tokens only, but with sign-in
  // configured they are never open, even without any token.
  const cookieAuth: SessionAuth | null = signIn && { signIn, clock: options.service.clock, sessions: options.service, acceptCookie: true };
  const tokenAuth: SessionAuth | null = cookieAuth && { ...cookieAuth, acceptCookie: false };
  await app.register(authRoutes, { signIn, clock: options.service.clock, sessions: options.service });
  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true } }, async (req) => servedDocument(app, req, options.publicUrl));
      await api.register(chatRoutes, { chat: options.chat ?? null });
      await api.register(emailRoutes, { email: options.email ?? null });
      await api.register(teamsRoutes, { teams: options.teams ?? null });
      await api.register(async (secured) => {
        secured.addHook('onRequest', bearerAuth(options.credentials, cookieAuth));
        await secured.register(meRoutes);
        await secured.register(requestRoutes, routeOptions);
        await secured.register(proposalRoutes, routeOptions);
        await secured.register(expertRoutes, routeOptions);
        await secured.register(replyRoutes, routeOptions);
        await secured.register(consumerRoutes, routeOptions);
        await secured.register(instanceRoutes, routeOptions);
        await secured.register(sessionRoutes, routeOptions);
        await secured.register(answerRoutes, routeOptions);
        await secured.register(insightRoutes, routeOptions);
        await secured.register(queueRoutes, {
          ...routeOptions,
          ...(options.queuePollMs !== undefined ? { pollMs: options.queuePollMs } : {}),
          ...(options.queueHeartbeatMs !== undefined ? { heartbeatMs: options.queueHeartbeatMs } : {}),
        });
      });
    },
    { prefix: '/api/v1' },
  );

  await app.register(mcpRoutes, { service: options.service, credentials: options.credentials, signInAuth: tokenAuth, hosts, ...options.mcp });
  await app.register(healthRoutes, { service: options.service, tickMs: options.health?.tickMs ?? 1000, schedulerRunning: options.health?.schedulerRunning ?? (() => false) });
  const { registry } = metrics;
  await app.register(async (scope) => {
    if (!options.publicMetrics) scope.addHook('onRequest', bearerAuth(options.credentials, tokenAuth));
    scope.get('/metrics', { schema: { hide: true } }, async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  });

  // Only the page and its built assets are public; the UI's sources and configs in web/ are not.
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    index: ['index.html'],
    wildcard: false,
    allowedPath: (path) => path === '/' || path === '/index.html' || path.startsWith('/assets/'),
  });
  return app;
}
