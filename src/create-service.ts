import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { Pruner, type InstanceHeartbeat } from './service/operations/index.js';
import { systemClock, type Clock } from './clock.js';
import { loadConfig, readEnv, readSecrets, type Config, type Secrets } from './config/load-config.js';
import type { ConsumerHandlers } from './delivery/delivery-dispatcher.js';
import { clientHintCommand, hintCommand } from './config/how-to-run.js';
import { createLogger, stdoutLogsReadable } from './log.js';
import type { ExpertqService } from './service/expertq-service.js';
import { ExpertsReloader, type ReloadOutcome, type ReloadTrigger } from './service/experts/index.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { ConsoleTransport } from './transport/console-transport.js';
import type { Transport } from './transport/transport.js';
import type { EmailChannel } from './transport/email/email-channel.js';
import type { TeamsChannel } from './transport/teams/teams-channel.js';
import { openChannels, type OpenedChannels, type TransportMode } from './open-channels.js';
import { retentionOf, wireService, type WiredService, type WireServiceOptions } from './compose-service.js';

export interface CreateServiceOptions {
  /** Path of `service.yaml`, or a configuration already loaded with `loadConfig`. */
  config: string | Config;
  /**
   * `console` (default) prints asks to `out`; `chat` runs Slack alone; `channels` every channel the file
   * configures (`chat:` for Slack, `email:`); or pass your own Transport.
   */
  transport?: TransportMode | Transport;
  out?: Writable;
  logger?: Logger;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Look for due work every `server.tick_ms` (default true). Tests turn it off and drive time themselves. */
  timers?: boolean;
  /** Reload the experts when the config file changes (default true). */
  watchConfig?: boolean;
  /**
   * The URL the HTTP server listens on, once known (`startServer` sets it): the console transport's
   * reply command then names it, so it works when pasted whatever set the port.
   */
  serverUrl?: () => string | undefined;
}

/** An in-process consumer: the SDK's counterpart of a webhook registration. */
export interface InProcessConsumer extends ConsumerHandlers {
  id: string;
  handles_kinds: string[];
  auto_accept?: boolean;
  dedup_window?: string;
  kind_schemas?: Record<string, unknown>;
  /** Requests it may submit per local day (org time zone); unset: the configured default. */
  max_requests_per_day?: number;
}

/**
 * expertq embedded in a Node process: the same store, transport, outbox and guarantees as the server,
 * without HTTP. In-process consumers get the same event objects as webhooks, at least once, from the
 * same outbox; deliveries owed to a consumer wait in the database until it registers again.
 */
export class Expertq {
  private closed = false;

  constructor(
    readonly service: ExpertqService,
    readonly config: Config,
    readonly secrets: Secrets,
    readonly transport: Transport,
    /** The channels that take requests of their own over HTTP (Slack's events, email's inbound route and links). */
    readonly channels: { slack: Transport | null; email: EmailChannel | null; teams: TeamsChannel | null },
    private readonly store: Store,
    private readonly timer: NodeJS.Timeout | null,
    /** Retention (`storage.retention*`) and expired sessions: hourly in a server with timers, or on demand. */
    readonly pruner: Pruner = new Pruner(store, retentionOf(config), service.clock, service.log),
    private readonly pruneTimer: NodeJS.Timeout | null = null,
    private readonly reloader: ExpertsReloader | null = null,
    private readonly heartbeat: InstanceHeartbeat | null = null,
  ) {}

  /**
   * Reads the config file again and applies its `experts:` (SIGHUP does this; so does a change to the
   * file). An invalid file is logged and the running registry kept.
   */
  reloadExperts(trigger: ReloadTrigger = 'request'): ReloadOutcome {
    return this.reloader?.reload(trigger) ?? 'unchanged';
  }

  /** Registers (or re-registers after a restart) an in-process consumer with its handlers. */
  async registerConsumer(consumer: InProcessConsumer): Promise<void> {
    const { id, handles_kinds, auto_accept, dedup_window, kind_schemas, max_requests_per_day, ...handlers } = consumer;
    await this.service.registerConsumer(
      { id, handles_kinds, auto_accept, dedup_window, kind_schemas, max_requests_per_day, delivery: { type: 'in_process' } },
      handlers,
    );
  }

  submitRequest(...args: Parameters<ExpertqService['submitRequest']>) {
    return this.service.submitRequest(...args);
  }

  receiveReply(...args: Parameters<ExpertqService['receiveReply']>) {
    return this.service.receiveReply(...args);
  }

  accept(proposalId: string, decision: { decided_by: string; note?: string }) {
    return this.service.decide(proposalId, 'accepted', decision);
  }

  reject(proposalId: string, decision: { decided_by: string; reason: string }) {
    return this.service.decide(proposalId, 'rejected', decision);
  }

  /** Whether this process runs the scheduler timer (`/readyz` then checks that it ticks). */
  get timersRunning(): boolean {
    return this.timer !== null && !this.closed;
  }

  /** Stops timers, lets attempts in flight finish (not the backlog), and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Waits for a decision (the SDK's, or HTTP's when the server did not already) end with the state they have.
    this.service.shutdown();
    this.reloader?.close();
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.pruner.stop();
    // Finish what is in flight, start nothing new: the backlog waits safely in the outbox.
    this.service.messages.stop();
    this.service.deliveries.stop();
    // LLM calls in flight are aborted: their jobs stay pending and run again at the next start.
    this.service.llmWorker?.stop();
    await this.service.idle();
    await this.transport.stop();
    // Gone from the instances list at once; a failure leaves the row to age out instead.
    await this.heartbeat?.stop().catch((err: unknown) => this.service.log.warn({ err }, 'could not remove this instance from the instances list'));
    await this.store.close();
  }
}

/**
 * Opens what the service runs on — configuration, secrets, the chat transport (checked with Slack), the
 * store (locked) — and hands them to `wireService` (`src/compose-service.ts`), which builds every
 * worker; then lets the experts follow the config file. `startServer` adds HTTP on top.
 */
export async function createService(options: CreateServiceOptions): Promise<Expertq> {
  const config = typeof options.config === 'string' ? loadConfig(options.config) : options.config;
  const secrets = readSecrets(config, readEnv(config.file, options.env));
  const log = options.logger ?? createLogger();
  const clock = options.clock ?? systemClock;
  // Slack is checked with Slack before the database opens: nothing half-starts.
  const mode = typeof options.transport === 'object' ? null : (options.transport ?? 'console');
  const publicUrl = () => config.server.public_url ?? options.serverUrl?.() ?? `http://${config.server.host}:${config.server.port}`;
  const opened = mode === 'chat' || mode === 'channels' ? await openChannels(mode, config, secrets, log, clock, publicUrl) : null;

  const store = await openStore(
    config.storage.url_env === undefined
      ? { path: config.storagePath }
      : { urlEnv: config.storage.url_env, url: secrets.databaseUrl, poolSize: config.storage.pool_size },
    log,
  );
  let email: EmailChannel | null = null;
  let teams: TeamsChannel | null = null;
  let transport: WireServiceOptions['transport'];
  if (opened) {
    let build: Awaited<ReturnType<OpenedChannels['prepare']>>;
    try {
      build = await opened.prepare(store);
    } catch (error) {
      await store.close();
      throw error;
    }
    transport = (_name, book) => {
      const built = build(book);
      email = built.email;
      teams = built.teams;
      return built.transport;
    };
  } else {
    transport =
      typeof options.transport === 'object'
        ? options.transport
        : // With JSON logs on stdout, the readable blocks go to stderr: stdout stays one JSON object per line.
          (expertName) => new ConsoleTransport(log, options.out ?? (stdoutLogsReadable() ? process.stdout : process.stderr), expertName, options.serverUrl ? clientHintCommand(config.file, options.serverUrl) : hintCommand(config.file));
  }
  let wired: WiredService;
  try {
    wired = await wireService({ config, secrets, store, log, clock, transport, timers: options.timers !== false });
  } catch (error) {
    await store.close();
    throw error;
  }
  const { service, timer, pruner, pruneTimer, heartbeat } = wired;
  // The registry follows the file: edits, a replaced config map or PUT /experts (found already applied).
  const reloader = config.file ? new ExpertsReloader(service, config.file, config) : null;
  if (reloader && options.watchConfig !== false) {
    reloader.start((error) => log.warn({ err: error, file: config.file }, 'the config file is no longer watched; send SIGHUP to reload the experts'));
  }
  return new Expertq(service, config, secrets, wired.transport, { slack: opened?.slack ?? null, email, teams }, store, timer, pruner, pruneTimer, reloader, heartbeat);
}
