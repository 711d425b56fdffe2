import { describe, expect, it, vi } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { RecordingTransport, useSharedDatabase } from '../support/shared-database.js';

/**
 * Several processes on one database: a message or delivery one of them is sending is never sent by
 * another while its lease lives (renewed while the send runs); when the process dies, another takes
 * the work over once the lease runs out (15 s), and sends it once.
 */

const LEASE_MS = 15_000;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const shared = useSharedDatabase();

describe('message outbox shared by several processes', () => {
  it('a message one process is sending is not sent by another; after it dies, the other sends it once', async () => {
    const slow = new RecordingTransport(true);
    const a = shared.db.open(slow);
    const other = new RecordingTransport(false);
    const b = shared.db.open(other);

    await a.service.submitRequest(submitBody() as never);
    await slow.sending();
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent).toHaveLength(0);

    shared.db.clock.advance(LEASE_MS - 1);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent).toHaveLength(0);

    await a.kill();
    shared.db.clock.advance(1);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent.map((m) => m.expertId)).toEqual(['dana']);

    shared.db.clock.advance(LEASE_MS);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent).toHaveLength(1);
    expect(slow.sent).toHaveLength(1);
    expect((await b.store.metrics.counts()).pendingMessages).toBe(0);
  });

  it('a live process keeps renewing the lease of a send that outlasts it', async () => {
    const slow = new RecordingTransport(true);
    const a = shared.db.open(slow);
    const other = new RecordingTransport(false);
    const b = shared.db.open(other);
    await a.service.submitRequest(submitBody() as never);
    await slow.sending();

    for (let i = 0; i < 6; i++) {
      shared.db.clock.advance(LEASE_MS / 3);
      vi.advanceTimersByTime(LEASE_MS / 3); // the renewal timer of process a
      await turn(); // its commit
      b.service.messages.kick();
      await b.service.messages.idle();
    }
    expect(other.sent).toHaveLength(0);

    await a.kill();
    shared.db.clock.advance(LEASE_MS);
    b.service.messages.kick();
    await b.service.messages.idle();
    expect(other.sent).toHaveLength(1);
  });
});

describe('webhook and in-process deliveries shared by several processes', () => {
  it('a process starting up leaves another live one its deliveries; once that one dies they are delivered once', async () => {
    const a = shared.db.open(new RecordingTransport(false));
    let started!: () => void;
    const handling = new Promise<void>((resolve) => (started = resolve));
    // Auto-accepting: it gets the proposal itself to decide on.
    const consumer = { id: 'billing-bot', handles_kinds: ['answer'], auto_accept: true, delivery: { type: 'in_process' as const } };
    await a.service.registerConsumer(consumer, {
      onProposal: () => {
        started();
        return new Promise(() => {}); // a handler that never finishes
      },
    });
    await a.service.submitRequest(submitBody() as never);
    await a.service.messages.idle();
    await a.service.receiveReply({ expert_id: 'dana', text: 'Thirty days from the invoice date.' } as never);
    await handling;

    // Process b starts on the same database while a is delivering.
    const b = shared.db.open(new RecordingTransport(false));
    const received: Array<Record<string, unknown>> = [];
    await b.service.registerConsumer(consumer, { onProposal: (event) => void received.push(event) });
    b.service.deliveries.kick();
    await b.service.deliveries.idle();
    expect(received).toHaveLength(0);

    shared.db.clock.advance(LEASE_MS - 1);
    b.service.deliveries.kick();
    await b.service.deliveries.idle();
    expect(received).toHaveLength(0);

    await a.kill();
    shared.db.clock.advance(1);
    b.service.deliveries.kick();
    await b.service.deliveries.idle();
    expect(received.map((e) => e.event)).toEqual(['proposal']);

    shared.db.clock.advance(LEASE_MS);
    b.service.deliveries.kick();
    await b.service.deliveries.idle();
    expect(received).toHaveLength(1);
    expect((await b.store.outbox.deliveries({ limit: 10 })).map((d) => [d.state, d.attempts])).toEqual([['delivered', 2]]);
  });
});
