import type { ChatEvents } from './http/routes/chat.js';
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Clock } from './clock.js';
import { ConfigError, loadConfig, portOverride, readEnv, type Config, type Secrets } from './config/load-config.js';
import { localServerUrl } from './config/how-to-run.js';
import type { Credential } from './http/auth.js';
import { createService, type Expertq } from './create-service.js';
import { defaultMode, emailEvents, type TransportMode } from './open-channels.js';
import { prepareSignIn, type SignIn } from './http/sign-in/prepare-sign-in.js';
import { createLogger } from './log.js';
import type { ExpertqService } from './service/expertq-service.js';

/** How long requests in flight may take to finish once shutdown starts (the whole stop has 5 s). */
const CLOSE_GRACE_MS = 3_000;

export interface ServeOptions {
  configPath: string;
  /** `console` (default), `chat` (Slack alone), `channels` (every channel the file configures), or `auto`: channels when the file configures one, else the console. */
  transport?: TransportMode | 'auto';
  env?: NodeJS.ProcessEnv;
  /** Where the console transport prints asks (stdout by default). */
  out?: Writable;
  logger?: Logger;
  clock?: Clock;
  /** What chose `configPath` (`--config`, `./service.yaml`, …), logged at start. */
  configFrom?: string;
  /** Overrides `PORT` and `server.port` (`serve --port`; 0 picks a free port, tests use it). */
  port?: number;
  /** How often MCP calls that wait send progress (default 15 s; tests shorten it). */
  mcpProgressEveryMs?: number;
}

export interface RunningServer {
  app: FastifyInstance;
  expertq: Expertq;
  service: ExpertqService;
  config: Config;
  url: string;
  close(): Promise<void>;
}

/**
 * The tokens the API accepts: the main `server.api_token_env` token (admin, no name) and each
 * `server.tokens` entry. A scoped token whose variable is unset stops start-up: silently dropping it
 * would lock its holder out, or, were it the only token, turn authentication off. So does a token
 * whose value another token already has.
 */
export function apiCredentials(config: Config, secrets: Secrets): Credential[] {
  if (secrets.apiTokenEmpty) {
    throw new ConfigError(
      `${config.server.api_token_env} is set but empty. Set it to a token, or unset it to run without authentication (warned at start-up).`,
    );
  }
  if (secrets.apiToken === 'change-me') {
    throw new ConfigError(`${config.server.api_token_env} is still the example placeholder "change-me"; set a long random token (expertq init writes one into .env).`);
  }
  const credentials: Credential[] = secrets.apiToken ? [{ name: null, role: 'admin', token: secrets.apiToken }] : [];
  // Which variable each token value came from: one value under two names would give its holder
  // whichever role is checked first.
  const envOf = new Map<string, string>(secrets.apiToken ? [[secrets.apiToken, config.server.api_token_env]] : []);
  for (const t of secrets.scopedTokens) {
    if (!t.token) throw new ConfigError(`The environment variable ${t.env} (server.tokens, token "${t.name}") is not set or empty.`);
    const other = envOf.get(t.token);
    if (other) throw new ConfigError(`${t.env} (server.tokens, token "${t.name}") has the same value as ${other}; give every token its own value.`);
    envOf.set(t.token, t.env);
    credentials.push({ name: t.name, role: t.role, token: t.token });
  }
  return credentials;
}

/** Wiring only: the embedded service (config → store → transport → timers), then HTTP, then listen. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const log = options.logger ?? createLogger();
  const loaded = loadConfig(options.configPath);
  const envPort = portOverride(readEnv(loaded.file, options.env).PORT, 'PORT');
  const port = options.port ?? envPort ?? loaded.server.port;
  const portFrom = options.port !== undefined ? '--port' : envPort !== undefined ? 'PORT' : `server.port in ${loaded.file}`;
  // What printed hints name: the port chosen above, then the one really bound (port 0 picks one).
  let listening: string | undefined = port === 0 ? undefined : localServerUrl(loaded.server.host, port);
  const transport = options.transport === 'auto' ? defaultMode(loaded) : options.transport;
  const expertq = await createService({ config: loaded, transport, out: options.out, logger: log, clock: options.clock, env: options.env, serverUrl: () => listening });
  const { config, secrets, service } = expertq;
  let credentials: Credential[];
  let signIn: SignIn | null;
  try {
    credentials = apiCredentials(config, secrets);
    signIn = await prepareSignIn(config, secrets);
  } catch (error) {
    await expertq.close();
    throw error;
  }
  if (credentials.length === 0 && signIn === null) {
    log.warn(
      { env: config.server.api_token_env },
      `authentication is DISABLED: ${config.server.api_token_env} is not set, so every API call is accepted`,
    );
  }
  // The Slack transport answers HTTP-mode events; its class is not imported here, so a console server never loads it.
  const chat = (expertq.channels.slack ?? (expertq.transport.name === 'chat' ? expertq.transport : null)) as unknown as ChatEvents | null;
  const email = expertq.channels.email && emailEvents(expertq.channels.email, expertq.secrets.emailInboundToken ?? null, service);
  const app = await buildApp({
    service,
    credentials,
    logger: log,
    bodyLimit: config.server.body_limit,
    chat,
    email,
    teams: expertq.channels.teams,
    signIn,
    publicMetrics: config.server.public_metrics,
    health: { tickMs: config.server.tick_ms, schedulerRunning: () => expertq.timersRunning },
    allowedHosts: config.server.allowed_hosts,
    publicUrl: config.server.public_url,
    mcp: { ...(options.mcpProgressEveryMs !== undefined ? { progressEveryMs: options.mcpProgressEveryMs } : {}) },
  });
  let address: string;
  try {
    address = await app.listen({ port, host: config.server.host });
    const bound = app.server.address();
    if (bound !== null && typeof bound === 'object') listening = localServerUrl(config.server.host, bound.port);
  } catch (error) {
    await app.close();
    await expertq.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`Port ${port} on ${config.server.host} (from ${portFrom}) is already in use; stop the other process, or choose another port with --port, PORT or server.port in ${config.file}.`);
    }
    throw error;
  }
  log.info({ url: address, config: config.file, config_from: options.configFrom ?? '--config', db: config.storage.url_env === undefined ? config.storagePath : `PostgreSQL from ${config.storage.url_env}`, transport: transport ?? 'console', channels: [...service.channels.running], experts: service.experts.experts.length }, 'expertq is serving');

  let closed = false;
  return {
    app,
    expertq,
    service,
    config,
    url: address,
    async close() {
      if (closed) return;
      closed = true;
      // Long polls and live streams end first, with the state they have; what arrives from now on gets 503.
      service.shutdown();
      // Requests in flight (writes) get a grace period; a connection still open after it is cut.
      const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
      force.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await expertq.close();
    },
  };
}
