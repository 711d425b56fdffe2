import { afterEach, beforeEach, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LlmClient } from '../../src/llm/create-llm-client.js';
import { composeService } from '../../src/compose-service.js';
import type { ExpertqService } from '../../src/service/expertq-service.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { OutboundMessage, Transport } from '../../src/transport/transport.js';
import { EXAMPLE_EXPERTS } from './build-test-app.js';
import { captureLogger } from './capture.js';
import { FakeClock } from './fake-clock.js';

/** A transport that records what it is asked to send and never finishes (`hang`) or takes it at once. */
export class RecordingTransport implements Transport {
  readonly name = 'chat' as const;
  readonly threaded = false;
  readonly sent: OutboundMessage[] = [];
  private called: Array<() => void> = [];
  constructor(private readonly hang: boolean) {}
  send(message: OutboundMessage): Promise<void> {
    this.sent.push(message);
    this.called.splice(0).forEach((resolve) => resolve());
    return this.hang ? new Promise(() => {}) : Promise.resolve();
  }
  /** Resolves once a send has been asked for. */
  sending(): Promise<void> {
    return this.sent.length > 0 ? Promise.resolve() : new Promise((resolve) => this.called.push(resolve));
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

export interface Instance {
  service: ExpertqService;
  store: SqliteStore;
  /** The process dies: its database connection goes, and nothing it had in flight ever finishes. */
  kill(): Promise<void>;
}

/**
 * Several service instances on one SQLite file, as several processes sharing a database would be
 * (each with its own connection and dispatchers), all on one fake clock.
 */
export function sharedDatabase(): { clock: FakeClock; open(transport: Transport, llm?: LlmClient): Instance; close(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-shared-'));
  const clock = new FakeClock();
  const instances: Instance[] = [];
  const config = {
    org: { name: 'Acme', timezone: 'UTC' },
    defaults: { escalation_after: 7_200_000, give_up_after: 86_400_000, quiet_hours: null, max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 },
    topics: {},
    experts: EXAMPLE_EXPERTS,
  };
  return {
    clock,
    open(transport, llm) {
      const store = openSqliteStore(join(dir, 'db.sqlite'));
      const service = composeService({ config, store, transport, log: captureLogger().log, clock, llm: llm ?? null });
      const instance = { service, store, kill: () => store.close() };
      instances.push(instance);
      return instance;
    },
    async close() {
      await Promise.all(instances.map((i) => i.store.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One shared database per test: registers the hooks that open it (with only the lease renewal timers
 * faked; time for the leases is the fake clock) and close it. Read `.db` inside a test.
 */
export function useSharedDatabase(): { readonly db: ReturnType<typeof sharedDatabase> } {
  let db: ReturnType<typeof sharedDatabase> | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    db = sharedDatabase();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await db?.close();
  });
  return {
    get db() {
      return db!;
    },
  };
}
