import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { composeService } from '../../../src/compose-service.js';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import type { OutboundMessage, Transport } from '../../../src/transport/transport.js';
import { FakeClock } from '../../support/fake-clock.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';

/** What one instance's transport was handed. */
class Recorder implements Transport {
  readonly name = 'console' as const;
  readonly threaded = false;
  readonly sent: OutboundMessage[] = [];
  async send(m: OutboundMessage): Promise<void> {
    this.sent.push(m);
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

const YAML = `
org: { name: Acme }
defaults: { escalation_after: 1h, give_up_after: 3h, max_open_asks_per_expert: 100, max_asks_per_expert_per_day: 100 }
experts:
  - { id: dana, name: Dana, topics: [billing], escalation_to: lee }
  - { id: lee, name: Lee, topics: [payroll] }
`;

const database = `eq_due_once_${process.pid}`;
const stores: PgStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await dropTestDatabase(database);
});

/** Two instances, each with its own pool and transport, on one fresh database, sharing a fake clock. */
async function twoInstances(yaml: string, clock: FakeClock) {
  const url = await createTestDatabase(database);
  const config = { ...parseConfig(yaml, '/etc/expertq/service.yaml'), file: null };
  const make = async () => {
    const store = await openPgStore({ url, poolSize: 4 });
    stores.push(store);
    const transport = new Recorder();
    const service = composeService({ config, store, transport, log: pino({ level: 'silent' }), clock });
    return { service, transport };
  };
  return [await make(), await make()] as const;
}

describe('due work on two instances of one PostgreSQL database', () => {
  it('sends each ask held back by quiet hours once when the quiet hours end, though both instances tick then', async () => {
    // 10:00 UTC on the fake clock: quiet until 18:00.
    const clock = new FakeClock();
    const [a, b] = await twoInstances(YAML.replace('give_up_after: 3h', "give_up_after: 24h, quiet_hours: ['08:00', '18:00']"), clock);
    for (let i = 0; i < 20; i++) await a.service.submitRequest({ consumer_id: 'bot', topic: 'billing', question: `Question ${i}?`, context: { asked_because: 'test' } });
    await a.service.idle();
    expect(a.transport.sent.filter((m) => m.purpose === 'ask')).toHaveLength(0);

    clock.advance(8 * 60 * 60_000 + 60_000);
    const ticks = await Promise.all([a.service.tick(), b.service.tick()]);
    await Promise.all([a.service.idle(), b.service.idle()]);
    expect(ticks[0].sent + ticks[1].sent).toBe(20);
    const asks = [...a.transport.sent, ...b.transport.sent].filter((m) => m.purpose === 'ask');
    expect(new Set(asks.map((m) => m.askId)).size).toBe(20);
    expect(asks).toHaveLength(20);
  });

  it('escalates each due ask once and gives each request up once, though both instances tick at the same moment', async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances(YAML, clock);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const submitted = await a.service.submitRequest({ consumer_id: 'bot', topic: 'billing', question: `Question ${i}?`, context: { asked_because: 'test' } });
      ids.push(submitted.request_id);
    }
    await a.service.idle();

    clock.advance(61 * 60_000);
    const escalations = await Promise.all([a.service.tick(), b.service.tick()]);
    await Promise.all([a.service.idle(), b.service.idle()]);
    expect(escalations[0].escalated + escalations[1].escalated).toBe(20);
    for (const id of ids) {
      const asks = await a.service.store.asks.listFor(id);
      expect(asks.map((ask) => [ask.expert_id, ask.state])).toEqual([
        ['dana', 'escalated'],
        ['lee', 'open'],
      ]);
    }
    const toLee = [...a.transport.sent, ...b.transport.sent].filter((m) => m.expertId === 'lee' && m.purpose === 'ask');
    expect(toLee).toHaveLength(20);

    clock.advance(2 * 60 * 60_000);
    const giveUps = await Promise.all([a.service.tick(), b.service.tick()]);
    await Promise.all([a.service.idle(), b.service.idle()]);
    expect(giveUps[0].timed_out + giveUps[1].timed_out).toBe(20);
    for (const id of ids) {
      const failed = (await a.service.store.outbox.events(id)).filter((e) => e.type === 'request_failed');
      expect(failed).toHaveLength(1);
    }
  });
  it('warns each request about to give up once, though both instances tick at the same moment', async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances(YAML.replace('give_up_after: 3h', 'give_up_after: 3h, warn_before: 30m'), clock);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const submitted = await a.service.submitRequest({ consumer_id: 'bot', topic: 'billing', question: `Question ${i}?`, context: { asked_because: 'test' } });
      ids.push(submitted.request_id);
    }
    await a.service.idle();

    clock.advance(2 * 60 * 60_000 + 30 * 60_000);
    const ticks = await Promise.all([a.service.tick(), b.service.tick()]);
    expect(ticks[0].warned + ticks[1].warned).toBe(20);
    expect((await Promise.all([a.service.tick(), b.service.tick()])).map((t) => t.warned)).toEqual([0, 0]);
    for (const id of ids) {
      const warned = (await a.service.store.outbox.events(id)).filter((e) => e.type === 'request_expiring');
      expect(warned.map((e) => e.body.gives_up_at)).toEqual([new Date(clock.now() + 30 * 60_000).toISOString()]);
    }
  });
});
