import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { type Clock, systemClock } from './clock.js';
import { ConfigError, loadConfig, readEnv, readSecrets, type Config } from './config/load-config.js';
import { createLogger } from './log.js';
import { ExpertqService } from './service/expertq-service.js';
import { openDatabase, SqliteStore } from './store/sqlite-store.js';
import { ConsoleTransport } from './transport/console-transport.js';
import type { Transport } from './transport/transport.js';

export interface ServeOptions {
  configPath: string;
  transport?: 'console' | 'chat';
  env?: NodeJS.ProcessEnv;
  /** Where the console transport prints asks (stdout by default). */
  out?: Writable;
  logger?: Logger;
  clock?: Clock;
  /** Overrides `server.port` (0 picks a free port; tests use it). */
  port?: number;
}

export interface RunningServer {
  app: FastifyInstance;
  service: ExpertqService;
  config: Config;
  url: string;
  close(): Promise<void>;
}

/** Wiring only: config → store → transport → service → app → listen. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const config = loadConfig(options.configPath);
  const secrets = readSecrets(config, readEnv(config.file, options.env));
  const log = options.logger ?? createLogger();
  const transportName = options.transport ?? 'console';
  if (transportName === 'chat') {
    if (!config.chat) throw new ConfigError(`--transport chat needs a "chat" section in ${config.file}.`);
    throw new ConfigError('The chat (Slack) transport is not part of this build yet; use --transport console.');
  }
  if (!secrets.apiToken) {
    log.warn(
      { env: config.server.api_token_env },
      `authentication is DISABLED: ${config.server.api_token_env} is not set, so every API call is accepted`,
    );
  }

  const store = new SqliteStore(openDatabase(config.storagePath));
  const registryName = (id: string) => service.experts.get(id)?.name ?? id;
  const transport: Transport = new ConsoleTransport(log, options.out ?? process.stdout, registryName);
  const service: ExpertqService = new ExpertqService({
    config,
    store,
    transport,
    log,
    clock: options.clock ?? systemClock,
    allowPrivateWebhooks: config.server.allow_private_webhooks,
  });
  const app = await buildApp({ service, apiToken: secrets.apiToken, logger: log, bodyLimit: config.server.body_limit });
  await transport.start(async (reply) => {
    await service.receiveReply({ expert_id: reply.expertId, text: reply.text, request_id: reply.requestId });
  });
  // Anything committed but not delivered before a stop goes out now; due retries every tick.
  service.kick();
  const retry = setInterval(() => service.kick(), config.server.tick_ms);
  retry.unref();

  const address = await app.listen({ port: options.port ?? config.server.port, host: config.server.host });
  log.info({ url: address, db: config.storagePath, transport: transportName, experts: service.experts.experts.length }, 'expertq is serving');

  let closed = false;
  return {
    app,
    service,
    config,
    url: address,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(retry);
      await app.close();
      await service.idle();
      await transport.stop();
      store.close();
    },
  };
}
