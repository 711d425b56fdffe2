import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { WebhookReceiver, type Answer } from '../support/webhook-receiver.js';

let t: TestApp;
const receivers: WebhookReceiver[] = [];
beforeEach(async () => {
  t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
});
afterEach(async () => {
  await t.close();
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function receiver(answer?: ConstructorParameters<typeof WebhookReceiver>[0]): Promise<{ r: WebhookReceiver; url: string }> {
  const r = new WebhookReceiver(answer);
  receivers.push(r);
  return { r, url: await r.start() };
}

async function register(id: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call('POST', '/api/v1/consumers', { id, handles_kinds: ['answer'], delivery: { type: 'webhook', url }, ...extra });
  expect(res.status).toBe(201);
  return res.body.signing_secret;
}

/** Submit → Dana answers → returns ids. */
async function proposed(overrides: Record<string, unknown> = {}): Promise<{ requestId: string; proposalId: string }> {
  const requestId = (await t.call('POST', '/api/v1/requests', submitBody(overrides))).body.request_id;
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.', request_id: requestId });
  return { requestId, proposalId: reply.body.proposal_id };
}

/** Moves the fake clock and lets the dispatcher pick up what became due. */
async function advance(ms: number): Promise<void> {
  t.clock.advance(ms);
  t.service.kick();
  await t.service.idle();
}

const deliveries = async (query = '') => (await t.call('GET', `/api/v1/deliveries${query}`)).body.items;

describe('signed webhook delivery', () => {
  it('delivers proposal_accepted signed per Standard Webhooks, verified by an independent implementation', async () => {
    const { r, url } = await receiver();
    const secret = await register('ledger', url);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { requestId, proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });

    expect(r.events()).toEqual(['proposal_accepted']);
    const [hook] = r.received;
    expect(hook!.json).toMatchObject({
      event: 'proposal_accepted',
      id: expect.stringMatching(/^evt_/),
      request_id: requestId,
      created_at: '2026-11-23T10:00:00.000Z',
      proposal: { id: proposalId, status: 'accepted', answer: 'Thirty days.', provenance: { source: 'Dana Smith' } },
    });
    expect(hook!.json.proposal).not.toHaveProperty('context');
    expect(hook!.headers['webhook-id']).toBe(hook!.json.id);

    const verifier = new Webhook(secret);
    const headers = { 'webhook-id': hook!.headers['webhook-id'] as string, 'webhook-timestamp': hook!.headers['webhook-timestamp'] as string, 'webhook-signature': hook!.headers['webhook-signature'] as string };
    // The fake clock is in the future, so check the signature at the time it claims.
    const verifyAt = (body: string) => {
      const realNow = Date.now;
      Date.now = () => Number(headers['webhook-timestamp']) * 1000;
      try {
        return verifier.verify(body, headers);
      } finally {
        Date.now = realNow;
      }
    };
    expect(verifyAt(hook!.body)).toMatchObject({ event: 'proposal_accepted' });
    expect(() => verifyAt(hook!.body.replace('Thirty days.', 'Ninety days.'))).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`).verify(hook!.body, headers)).toThrow();

    expect(await deliveries()).toEqual([expect.objectContaining({ consumer_id: 'ledger', state: 'delivered', attempts: 1, last_status: 200 })]);
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body;
    expect(audit.at(-1)).toMatchObject({ type: 'delivered', data: { consumer_id: 'ledger', event: 'proposal_accepted', status: 200 } });
  });

  it('sends proposal only to auto_accept subscribers; others wait for the human decision', async () => {
    const auto = await receiver();
    const reviewed = await receiver();
    await register('auto', auto.url, { auto_accept: true });
    await register('reviewed', reviewed.url);
    const { proposalId } = await proposed();
    expect(auto.r.events()).toEqual(['proposal']);
    expect(auto.r.received[0]!.json.proposal).toMatchObject({ id: proposalId, status: 'pending' });
    expect(reviewed.r.events()).toEqual([]);
    expect((await t.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);
  });

  it('delivers proposal_rejected with the reason and request_failed with one reason code', async () => {
    const { r, url } = await receiver();
    await register('ledger', url);
    const { requestId, proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'alice', reason: 'policy changed in 2026' });
    const failed = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'gardening' }));
    expect(r.received.map((x) => x.json)).toEqual([
      expect.objectContaining({ event: 'proposal_rejected', request_id: requestId, reason: 'policy changed in 2026', proposal: expect.objectContaining({ status: 'rejected' }) }),
      expect.objectContaining({ event: 'request_failed', request_id: failed.body.request_id, reason: { code: 'no_expert_found', message: expect.any(String) } }),
    ]);
  });

  it('subscribes the registered submitter and dedup-attached consumers, and answers deduped_resolved at once', async () => {
    const bot = await receiver();
    const late = await receiver();
    const other = await receiver();
    for (const [id, url] of [['billing-bot', bot.url], ['late-bot', late.url], ['other-kind', other.url]] as const) {
      await t.call('POST', '/api/v1/consumers', { id, handles_kinds: ['something-else'], delivery: { type: 'webhook', url } });
    }
    const { requestId, proposalId } = await proposed({ dedup_key: 'inv-9' });
    await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'other-kind', dedup_key: 'inv-9' }));
    expect((await t.call('GET', `/api/v1/requests/${requestId}`)).body.subscribers).toEqual(['billing-bot', 'other-kind']);
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    expect(bot.r.events()).toEqual(['proposal_accepted']);
    expect(other.r.events()).toEqual(['proposal_accepted']);
    expect(late.r.events()).toEqual([]);

    const resolved = await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'late-bot', dedup_key: 'inv-9' }));
    expect(resolved.body.status).toBe('deduped_resolved');
    expect(late.r.received.map((x) => x.json)).toEqual([expect.objectContaining({ event: 'proposal_accepted', proposal: expect.objectContaining({ id: proposalId }) })]);
    expect(bot.r.events()).toEqual(['proposal_accepted']); // nobody else hears it twice
  });

  it('uses the registered consumer’s dedup_window', async () => {
    await t.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['x'], delivery: { type: 'webhook', url: (await receiver()).url }, dedup_window: 'PT1H' });
    const first = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k' }));
    t.clock.advance(30 * 60_000);
    expect((await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k' }))).body.status).toBe('deduped_open');
    t.clock.advance(31 * 60_000);
    const later = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k' }));
    expect(later.body).toMatchObject({ status: 'queued' });
    expect(later.body.request_id).not.toBe(first.body.request_id);
  });
});

describe('retries', () => {
  it('retries 5xx with backoff, same webhook-id each time, and records every attempt', async () => {
    const { r, url } = await receiver((_req, i) => (i < 2 ? 500 : 200));
    await register('ledger', url);
    const { requestId, proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    let [d] = await deliveries();
    expect(d).toMatchObject({ state: 'pending', attempts: 1, last_status: 500, last_error: 'endpoint answered 500' });
    const firstRetry = Date.parse(d.next_attempt_at) - t.clock.now();
    expect(firstRetry).toBeGreaterThanOrEqual(4_000);
    expect(firstRetry).toBeLessThanOrEqual(6_000);

    await advance(3_000);
    expect(r.received).toHaveLength(1); // not due yet
    await advance(3_000);
    expect(r.received).toHaveLength(2);
    await advance(36_000);
    expect(r.received).toHaveLength(3);
    [d] = await deliveries();
    expect(d).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200 });
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    const types = (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body.map((e: { type: string }) => e.type);
    expect(types.slice(-3)).toEqual(['delivery_failed', 'delivery_failed', 'delivered']);
  });

  it('honours Retry-After on 429, treats 3xx as failure (no redirect), and stops on 410', async () => {
    const answers: Answer[] = [{ status: 429, headers: { 'retry-after': '120' } }, { status: 302, headers: { location: 'http://127.0.0.1:1/' } }, 410];
    const { r, url } = await receiver((_req, i) => answers[i] ?? 200);
    await register('ledger', url);
    const { proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    let [d] = await deliveries();
    expect(Date.parse(d.next_attempt_at) - t.clock.now()).toBe(120_000);
    await advance(120_000);
    [d] = await deliveries();
    expect(d).toMatchObject({ state: 'pending', last_status: 302 });
    await advance(40_000);
    [d] = await deliveries();
    expect(d).toMatchObject({ state: 'dead', last_status: 410 });
    await advance(86_400_000);
    expect(r.received).toHaveLength(3);

    // Replay after the endpoint is fixed.
    const replay = await t.call('POST', `/api/v1/deliveries/${d.id}/retry`);
    // The same view as GET /deliveries, the event's type included: due now, attempts so far kept.
    expect(replay.body).toEqual({ ...d, state: 'pending', next_attempt_at: new Date(t.clock.now()).toISOString() });
    expect(replay.body.event).toBe('proposal_accepted');
    await t.service.idle();
    expect((await deliveries())[0]).toMatchObject({ state: 'delivered', last_status: 200 });
    expect(r.received).toHaveLength(4);
    expect((await t.call('POST', '/api/v1/deliveries/dlv_nope/retry')).status).toBe(404);
  });

  it('gives up after the whole schedule and marks the delivery dead', async () => {
    const { r, url } = await receiver(() => 503);
    await register('ledger', url);
    const { requestId, proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    for (let i = 0; i < 12; i++) await advance(10 * 3_600_000);
    expect(r.received).toHaveLength(11);
    expect((await deliveries('?state=dead'))[0]).toMatchObject({ attempts: 11, last_status: 503 });
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body;
    expect(audit.at(-1)).toMatchObject({ type: 'delivery_dead', data: { consumer_id: 'ledger' } });
  });

  it('one slow endpoint does not hold up another consumer', async () => {
    let release: () => void = () => {};
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    const slow = await receiver(() => held);
    const fast = await receiver();
    const proposals: string[] = [];
    for (let i = 0; i < 3; i++) proposals.push((await proposed({ target_experts: ['dana'] })).proposalId);
    await register('slow', slow.url);
    await register('fast', fast.url);
    // Accept without waiting for deliveries to finish: the slow endpoint is still holding its responses.
    for (const id of proposals) await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${id}/accept`, payload: { decided_by: 'alice' } });
    await fast.r.waitFor(3);
    expect(fast.r.events()).toEqual(['proposal_accepted', 'proposal_accepted', 'proposal_accepted']);
    expect(slow.r.received).toHaveLength(0);
    release();
    await t.service.idle();
    expect(slow.r.received).toHaveLength(3);
  });
});

describe('dispatcher limits and shutdown', () => {
  it('keeps at most 8 deliveries in flight per consumer, and a stop waits only for those', async () => {
    let release: () => void = () => {};
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    const slow = await receiver(() => held);
    const proposals: string[] = [];
    const roomy = { max_asks_per_expert_per_day: 50, max_open_asks_per_expert: 50 };
    for (let i = 0; i < 12; i++) proposals.push((await proposed({ target_experts: ['dana'], routing_policy: roomy })).proposalId);
    await register('slow', slow.url);
    for (const id of proposals) await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${id}/accept`, payload: { decided_by: 'alice' } });
    await slow.r.waitForArrivals(8);
    t.service.kick(); // nothing more may be claimed for this consumer while 8 are in flight
    // A claim counts an attempt: 8 claimed (in flight), the other 4 never tried.
    const pending = (await t.callNow('GET', '/api/v1/deliveries?state=pending')).body.items as Array<{ attempts: number }>;
    expect(pending.map((d) => d.attempts).sort()).toEqual([...Array(4).fill(0), ...Array(8).fill(1)]);
    expect(slow.r.arrived).toBe(8);

    t.service.deliveries.stop();
    release();
    await t.service.idle();
    expect(slow.r.received).toHaveLength(8); // the other 4 wait in the outbox for the next start
    expect((await deliveries('?state=pending')).length).toBe(4);
  });
});

describe('consumer registration', () => {
  it('registers, lists without secrets, replaces by id, lists kinds, and deletes', async () => {
    const { url } = await receiver();
    const given = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;
    const first = await t.call('POST', '/api/v1/consumers', {
      id: 'ledger',
      handles_kinds: ['answer', 'policy'],
      delivery: { type: 'webhook', url, secret: given },
      kind_schemas: { policy: { type: 'object', properties: { days: { type: 'number' } } } },
    });
    expect(first).toEqual({ status: 201, body: { id: 'ledger', signing_secret: given } });
    await t.call('POST', '/api/v1/consumers', { id: 'all', handles_kinds: ['*'], delivery: { type: 'webhook', url } });

    const list = (await t.call('GET', '/api/v1/consumers')).body;
    expect(list).toHaveLength(2);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    expect(list[0]).toMatchObject({ id: 'ledger', dedup_window: 'P1D', auto_accept: false, delivery: { type: 'webhook', url } });

    expect((await t.call('GET', '/api/v1/kinds')).body).toEqual([
      { kind: 'answer', schema: null, consumers: ['ledger', 'all'] },
      { kind: 'policy', schema: { type: 'object', properties: { days: { type: 'number' } } }, consumers: ['ledger', 'all'] },
    ]);

    const replaced = await t.call('POST', '/api/v1/consumers', { id: 'ledger', handles_kinds: ['answer'], delivery: { type: 'webhook', url }, auto_accept: true });
    expect(replaced.status).toBe(201);
    expect(replaced.body.signing_secret).not.toBe(given);
    expect((await t.call('GET', '/api/v1/consumers')).body[0]).toMatchObject({ id: 'ledger', auto_accept: true, handles_kinds: ['answer'] });

    const del = await t.app.inject({ method: 'DELETE', url: '/api/v1/consumers/ledger' });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await t.call('DELETE', '/api/v1/consumers/ledger')).body.error.code).toBe('not_found');
  });

  it('drops pending deliveries of a deleted consumer, and audits it', async () => {
    const { url } = await receiver(() => 500);
    await register('ledger', url);
    const { requestId, proposalId } = await proposed();
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    await t.call('DELETE', '/api/v1/consumers/ledger');
    expect((await deliveries())[0]).toMatchObject({ state: 'dropped' });
    const audit = (await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body;
    expect(audit.at(-1)).toMatchObject({ type: 'delivery_dead', data: { consumer_id: 'ledger', error: expect.stringContaining('consumer deleted') } });
  });

  it.each([
    ['no handles_kinds', { id: 'c', handles_kinds: [], delivery: { type: 'webhook', url: 'https://example.com/h' } }, 'handles_kinds'],
    ['unknown delivery type', { id: 'c', handles_kinds: ['a'], delivery: { type: 'email', url: 'https://example.com/h' } }, 'delivery.type'],
    ['not a URL', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url: 'not a url' } }, 'delivery.url'],
    ['ftp URL', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url: 'ftp://example.com/h' } }, 'delivery.url'],
    ['bad secret', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url: 'https://example.com/h', secret: 'hunter2' } }, 'delivery.secret'],
    ['bad dedup_window', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url: 'https://example.com/h' }, dedup_window: '1 day' }, 'dedup_window'],
    ['unknown field', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url: 'https://example.com/h' }, retries: 3 }, '(root)'],
  ])('%s → 400, nothing registered', async (_name, body, path) => {
    const res = await t.call('POST', '/api/v1/consumers', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await t.call('GET', '/api/v1/consumers')).body).toEqual([]);
  });
});

describe('private webhook targets', () => {
  it.each(['http://127.0.0.1:9/h', 'http://localhost:9/h', 'http://10.1.2.3/h', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/h', 'http://[fd00:ec2::254]/h', 'http://100.64.0.1/h', 'http://[::ffff:192.168.0.1]/h'])(
    'refuses %s unless server.allow_private_webhooks is true',
    async (url) => {
      const strict = await buildTestApp();
      try {
        const res = await strict.call('POST', '/api/v1/consumers', { id: 'c', handles_kinds: ['a'], delivery: { type: 'webhook', url } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toContain('allow_private_webhooks');
        expect((await strict.call('GET', '/api/v1/consumers')).body).toEqual([]);
      } finally {
        await strict.close();
      }
    },
  );
});
