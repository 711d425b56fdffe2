import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../../src/compose-service.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { OutboundMessage, Transport } from '../../src/transport/transport.js';
import { EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';
import { FakeClock } from '../support/fake-clock.js';

/** A chat platform that is down for the first `failures` calls (what a Slack outage looks like to us). */
class FlakyPlatform implements Transport {
  readonly name = 'chat' as const;
  readonly threaded = false;
  delivered: OutboundMessage[] = [];
  calls = 0;
  constructor(private failures: number) {}
  async send(message: OutboundMessage): Promise<void> {
    this.calls++;
    if (this.failures-- > 0) throw new Error('platform unavailable');
    this.delivered.push(message);
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup(transport: Transport, dbPath?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-msg-'));
  dirs.push(dir);
  const clock = new FakeClock();
  const store = openSqliteStore(dbPath ?? join(dir, 'db.sqlite'));
  const { log, logs } = captureLogger();
  const config = { org: { name: 'Acme', timezone: 'UTC' }, defaults: { escalation_after: 7_200_000, give_up_after: 86_400_000, quiet_hours: null, max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 }, topics: {}, experts: EXAMPLE_EXPERTS };
  const service = composeService({ config, store, transport, log, clock });
  return { service, store, clock, logs, dir };
}

describe('message outbox', () => {
  it('retries a failed send with backoff until the platform takes it, exactly once delivered', async () => {
    const platform = new FlakyPlatform(2);
    const { service, clock, store } = setup(platform);
    const { request_id } = await service.submitRequest(submitBody() as never);
    await service.idle();
    expect(platform.delivered).toHaveLength(0);

    clock.advance(4_999);
    service.messages.kick();
    await service.idle();
    expect(platform.calls).toBe(1); // not due yet

    clock.advance(1);
    service.messages.kick();
    await service.idle();
    expect(platform.calls).toBe(2); // second failure: next try in 30 s

    clock.advance(30_000);
    service.messages.kick();
    await service.idle();
    expect(platform.delivered.map((m) => m.expertId)).toEqual(['dana']);
    expect(platform.delivered[0]!.text).toContain('Question: What is the grace period');
    expect((await store.outbox.messages(request_id)).map((m) => ({ state: m.state, attempts: m.attempts }))).toEqual([{ state: 'sent', attempts: 3 }]);
    await store.close();
  });

  it('a message committed before a crash is sent after restart', async () => {
    const down = new FlakyPlatform(Infinity);
    const first = setup(down);
    await first.service.submitRequest(submitBody() as never);
    await first.service.idle();
    first.store.close(); // the process dies; the message is still pending in the database

    const up = new FlakyPlatform(0);
    const second = setup(up, join(first.dir, 'db.sqlite'));
    second.clock.advance(60_000);
    second.service.messages.kick();
    await second.service.idle();
    expect(up.delivered).toHaveLength(1);
    expect(up.delivered[0]!.expertId).toBe('dana');
    second.store.close();
  });

  it('gives up after the last retry and logs an error', async () => {
    const platform = new FlakyPlatform(Infinity);
    const { service, clock, logs, store } = setup(platform);
    const { request_id } = await service.submitRequest(submitBody() as never);
    await service.idle();
    for (let i = 0; i < 10; i++) {
      clock.advance(3_600_000);
      service.messages.kick();
      await service.idle();
    }
    expect(platform.calls).toBe(7);
    expect((await store.outbox.messages(request_id)).map((m) => m.state)).toEqual(['dead']);
    expect(logs.lines.some((l) => l.msg === 'message to expert failed for good' && l.expert_id === 'dana')).toBe(true);
    await store.close();
  });
});
