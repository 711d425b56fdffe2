import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TickResult } from '../../src/service/operations/index.js';
import { buildTestApp, submitBody, testConfigYaml, type TestApp, type TestAppOptions } from './build-test-app.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface AuditRow {
  at: string;
  type: string;
  actor: string;
  data: Record<string, unknown>;
}

/**
 * What the time tests need on top of a test app: move the fake clock and run one scheduler tick (no
 * sleeps), plus short API helpers. `restart()` stops the app and opens a new one on the same database
 * file, as a new process would.
 */
export interface SchedulerKit {
  t: TestApp;
  /** Sets the clock to an instant (ISO or ms) and ticks once; waits until messages are printed. */
  tickAt(at: string | number): Promise<TickResult>;
  /** Advances the clock by `ms` and ticks once. */
  tickAfter(ms: number): Promise<TickResult>;
  submit(overrides?: Record<string, unknown>): Promise<string>;
  reply(expertId: string, text: string, requestId?: string): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  request(id: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** `[expert_id, state]` of each ask of a request. */
  asks(id: string): Promise<Array<[string, string]>>;
  audit(id: string): Promise<AuditRow[]>;
  /** Audit rows of one type. */
  auditOf(id: string, type: string): Promise<AuditRow[]>;
  expert(id: string): Promise<{ id: string; muted: boolean; open_asks: number; asks_today: number; available_now: boolean; unavailable: unknown; away?: unknown }>;
  /** Expert ids the console transport sent messages to, in order. */
  recipients(): string[];
  /** `event` rows written for a request (the outbox), oldest first. */
  events(requestId: string): Promise<Array<{ type: string; body: Record<string, unknown>; created_at: number }>>;
  /** Stops and starts again on the same database; with `config`, on a rewritten configuration file. */
  restart(config?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function schedulerKit(options: TestAppOptions = {}, startAt?: string): Promise<SchedulerKit> {
  let t = await buildTestApp(options);
  if (startAt) t.clock.set(startAt);

  const kit: SchedulerKit = {
    get t() {
      return t;
    },
    async tickAt(at) {
      t.clock.set(at);
      const result = await t.service.tick();
      await t.service.idle();
      return result;
    },
    async tickAfter(ms) {
      return kit.tickAt(t.clock.now() + ms);
    },
    async submit(overrides = {}) {
      const res = await t.call('POST', '/api/v1/requests', submitBody(overrides));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.request_id;
    },
    reply: (expert_id, text, request_id) => t.call('POST', '/api/v1/replies', { expert_id, text, ...(request_id ? { request_id } : {}) }),
    async request(id) {
      return (await t.call('GET', `/api/v1/requests/${id}`)).body;
    },
    async asks(id) {
      return (await kit.request(id)).asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state]);
    },
    async audit(id) {
      return (await t.call('GET', `/api/v1/audit?request_id=${id}`)).body;
    },
    async auditOf(id, type) {
      return (await kit.audit(id)).filter((e) => e.type === type);
    },
    async expert(id) {
      return (await t.call('GET', '/api/v1/experts')).body.find((e: { id: string }) => e.id === id);
    },
    recipients() {
      return t.messages().map((m) => /── message to .*? \(([^)]+)\)/.exec(m)![1]!);
    },
    async events(requestId) {
      return (await t.store.outbox.events(requestId)).map((e) => ({ type: e.type, body: e.body, created_at: e.created_at }));
    },
    async restart(config?: Record<string, unknown>) {
      const now = t.clock.now();
      await t.stop();
      if (config) writeFileSync(t.configFile, testConfigYaml(config));
      t = await buildTestApp({ ...options, dir: t.dir });
      t.clock.set(now);
    },
    close: () => t.close(),
  };
  return kit;
}

/** Experts in a chain A → B → C, each with a topic of their own. */
export const CHAIN = [
  { id: 'ana', name: 'Ana Garcia', topics: ['tax'], escalation_to: 'ben' },
  { id: 'ben', name: 'Ben Berg', topics: ['payroll'], escalation_to: 'cy' },
  { id: 'cy', name: 'Cy Sato', topics: ['benefits'] },
];
