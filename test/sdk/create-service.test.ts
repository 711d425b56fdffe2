import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Expertq } from '../../src/index.js';
import { EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { Capture, captureLogger } from '../support/capture.js';
import { FakeClock } from '../support/fake-clock.js';

let dir: string;
let config: string;
let clock: FakeClock;
const open: Expertq[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-sdk-'));
  config = join(dir, 'service.yaml');
  writeFileSync(config, stringify({ org: { name: 'Acme' }, experts: EXAMPLE_EXPERTS }));
  clock = new FakeClock();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<Expertq> {
  const service = await createService({ config, out: new Capture(), logger: captureLogger().log, clock, timers: false });
  open.push(service);
  return service;
}

async function acceptedAnswer(expertq: Expertq): Promise<string> {
  const { request_id } = await expertq.submitRequest(submitBody() as never);
  const reply = await expertq.receiveReply({ expert_id: 'dana', text: 'Thirty days.', request_id });
  await expertq.accept(reply.proposal_id!, { decided_by: 'alice' });
  await expertq.service.idle();
  return reply.proposal_id!;
}

describe('createService (in-process SDK)', () => {
  it('delivers the same event objects as webhooks to in-process handlers', async () => {
    const expertq = await start();
    const accepted: Array<Record<string, unknown>> = [];
    const pending: Array<Record<string, unknown>> = [];
    await expertq.registerConsumer({ id: 'kb', handles_kinds: ['answer'], onProposalAccepted: (e) => void accepted.push(e) });
    await expertq.registerConsumer({ id: 'bot', handles_kinds: ['answer'], auto_accept: true, onProposal: (e) => void pending.push(e) });
    const proposalId = await acceptedAnswer(expertq);
    expect(accepted).toEqual([
      {
        event: 'proposal_accepted',
        id: expect.stringMatching(/^evt_/),
        created_at: '2026-11-23T10:00:00.000Z',
        request_id: expect.stringMatching(/^req_/),
        proposal: expect.objectContaining({ id: proposalId, status: 'accepted', answer: 'Thirty days.' }),
      },
    ]);
    expect(pending.map((e) => e.event)).toEqual(['proposal']);
    // bot has no accepted-handler: an ignored event counts as delivered.
    const states = (await expertq.service.listDeliveries({ limit: 10 })).items.map((d) => `${d.consumer_id}:${d.state}`);
    expect(states.sort()).toEqual(['bot:delivered', 'bot:delivered', 'kb:delivered']);
  });

  it('retries a handler that throws, with the webhook backoff', async () => {
    const expertq = await start();
    let calls = 0;
    await expertq.registerConsumer({
      id: 'kb',
      handles_kinds: ['answer'],
      onProposalAccepted: () => {
        if (++calls === 1) throw new Error('index is rebuilding');
      },
    });
    await acceptedAnswer(expertq);
    expect(calls).toBe(1);
    expect((await expertq.service.listDeliveries({ limit: 1 })).items[0]).toMatchObject({ state: 'pending', last_error: 'index is rebuilding' });
    clock.advance(6_000);
    expertq.service.kick();
    await expertq.service.idle();
    expect(calls).toBe(2);
    expect((await expertq.service.listDeliveries({ limit: 1 })).items[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('keeps events for an in-process consumer across a restart until it registers again', async () => {
    const first = await start();
    await first.registerConsumer({ id: 'kb', handles_kinds: ['answer'], onProposalAccepted: () => Promise.reject(new Error('down')) });
    const proposalId = await acceptedAnswer(first);
    await first.close();

    const second = await start();
    second.service.kick();
    await second.service.idle();
    expect((await second.service.listDeliveries({ limit: 1 })).items[0]).toMatchObject({ state: 'pending' });

    const got: string[] = [];
    clock.advance(10_000);
    await second.registerConsumer({ id: 'kb', handles_kinds: ['answer'], onProposalAccepted: (e) => void got.push((e.proposal as { id: string }).id) });
    await second.service.idle();
    expect(got).toEqual([proposalId]);
  });
});
