import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { stringify } from 'yaml';
import { buildApp } from '../../src/app.js';
import type { Credential } from '../../src/http/auth.js';
import { prepareSignIn } from '../../src/http/sign-in/prepare-sign-in.js';
import { loadConfig, readSecrets } from '../../src/config/load-config.js';
import type { ExpertqService } from '../../src/service/expertq-service.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { ConsoleTransport } from '../../src/transport/console-transport.js';
import { wireService } from '../../src/compose-service.js';
import { Capture, captureLogger } from './capture.js';
import { FakeClock } from './fake-clock.js';

export const EXAMPLE_EXPERTS = [
  { id: 'dana', name: 'Dana Smith', topics: ['billing', 'invoices'], escalation_to: 'lee' },
  { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments'] },
  { id: 'sam', name: 'Sam Okafor', topics: ['deployments', 'kubernetes'] },
];

export interface TestAppOptions<S extends Store = SqliteStore> {
  /** Opens the store instead of SQLite in the test's directory (a PostgreSQL store, say). */
  openStore?: () => Promise<S>;
  /** Extra or replacement top-level config sections. */
  config?: Record<string, unknown>;
  token?: string;
  /** The queue stream's poll for other processes' changes (default 1 s). */
  queuePollMs?: number;
  /** The queue stream's keep-alive, when it also ends streams of ended sessions (default 10 s). */
  queueHeartbeatMs?: number;
  /** Scoped tokens (`server.tokens`) the app accepts besides `token`. */
  credentials?: Credential[];
  /** Raw YAML instead of the generated config. */
  yaml?: string;
  /** Reopen the app of an earlier `stop()` in this directory: same config file, same database (a restart). */
  dir?: string;
  /** The environment `*_env` keys are read from (default: empty, so the developer's variables never leak in). */
  env?: Record<string, string>;
}

export interface TestApp<S extends Store = SqliteStore> {
  app: FastifyInstance;
  service: ExpertqService;
  clock: FakeClock;
  /** What the console transport printed. */
  out: Capture;
  logs: Capture;
  dir: string;
  configFile: string;
  store: S;
  /** `app.inject` with JSON parsing and the bearer token. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: InjectOptions['method'], url: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** `call` with another bearer token (null: none). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  callAs(token: string | null, method: InjectOptions['method'], url: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Like `call`, but answers as soon as the route does, without waiting for the work it started. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  callNow(method: InjectOptions['method'], url: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Messages the console transport printed, one per block. */
  messages(): string[];
  /** Closes the app and the database but keeps the directory, for `buildTestApp({ dir })` (a restart). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** The test configuration: Acme in UTC, the example experts, a fallback for "security", and `config` over it. */
export function testConfigYaml(config: Record<string, unknown> = {}): string {
  return stringify({ org: { name: 'Acme', timezone: 'UTC' }, experts: EXAMPLE_EXPERTS, topics: { security: { fallback: 'sam' } }, ...config });
}

/** One real app per test: temp dir, real YAML file, real SQLite, console transport, fake clock. */
export async function buildTestApp<S extends Store = SqliteStore>(options: TestAppOptions<S> = {}): Promise<TestApp<S>> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'expertq-test-'));
  const configFile = join(dir, 'service.yaml');
  const yaml = options.yaml ?? testConfigYaml(options.config);
  if (!options.dir) writeFileSync(configFile, yaml);
  const config = loadConfig(configFile);
  const clock = new FakeClock();
  const out = new Capture();
  const { log, logs } = captureLogger();
  const store = (options.openStore ? await options.openStore() : openSqliteStore(config.storagePath)) as S;
  // The same wiring as `createService` (LLM, workers, transport start, leftover work kicked), without timers.
  const secrets = readSecrets(config, options.env ?? {});
  // As `startServer` does: an `auth.oidc` section discovers its provider (a real one in tests).
  const signIn = await prepareSignIn(config, secrets);
  const { service } = await wireService({
    config,
    secrets,
    store,
    log,
    clock,
    transport: (expertName) => new ConsoleTransport(log, out, expertName),
    timers: false,
    delivery: { timeoutMs: 2_000 },
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const credentials: Credential[] = [...(options.token ? [{ name: null, role: 'admin' as const, token: options.token }] : []), ...(options.credentials ?? [])];
  const app = await buildApp({
    service, credentials, signIn, logger: log, bodyLimit: config.server.body_limit,
    allowedHosts: config.server.allowed_hosts, publicUrl: config.server.public_url,
    ...(options.queuePollMs !== undefined ? { queuePollMs: options.queuePollMs } : {}),
    ...(options.queueHeartbeatMs !== undefined ? { queueHeartbeatMs: options.queueHeartbeatMs } : {}),
  });
  let stopped = false;
  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    await app.close();
    // As the real shutdown does: LLM calls in flight are aborted and their jobs stay pending.
    service.llmWorker?.stop();
    await service.idle();
    await store.close();
  }
  async function inject(token: string | null, method: InjectOptions['method'], url: string, body?: unknown) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  }

  const callAs: TestApp<S>['callAs'] = async (token, method, url, body) => {
    const res = await inject(token, method, url, body);
    await service.idle();
    return res;
  };

  return {
    app,
    service,
    clock,
    out,
    logs,
    dir,
    configFile,
    store,
    call(method, url, body) {
      return callAs(options.token ?? null, method, url, body);
    },
    callAs,
    callNow: (method, url, body) => inject(options.token ?? null, method, url, body),
    messages() {
      return out.text.split(/\n(?=── message to )/).map((m) => m.trim()).filter((m) => m.startsWith('── message to'));
    },
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A valid submit body; override any field. */
export function submitBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    consumer_id: 'billing-bot',
    topic: 'billing',
    question: 'What is the grace period for disputed invoices?',
    context: { asked_because: 'the invoice total does not match the ledger' },
    ...overrides,
  };
}
