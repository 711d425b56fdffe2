import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

const ADMIN = 'admin-token-1';
const CONSUMER = 'consumer-token-1';
const credentials = [{ name: 'billing-bot', role: 'consumer' as const, token: CONSUMER }];

let t: TestApp;
afterEach(async () => t?.close());

describe('a consumer token gets everything about its own request from the request record', () => {
  it('who is asked, until when, and the proposal once decided, from GET /requests/{id} and its long poll', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { body } = await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody({ consumer_id: 'billing-bot' }));
    const url = `/api/v1/requests/${body.request_id}`;
    const open = await t.callAs(CONSUMER, 'GET', url);
    expect(open.body).toMatchObject({
      status: 'asked',
      asked: [{ expert_id: 'dana', expert_name: 'Dana Smith', sent_at: expect.any(String), escalates_to: 'Lee Chen', escalates_at: expect.any(String) }],
      waiting: null,
      gives_up_at: expect.any(String),
      proposal: null,
    });

    const reply = await t.callAs(ADMIN, 'POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
    expect((await t.callAs(CONSUMER, 'GET', url)).body).toMatchObject({ status: 'proposed', waiting: { why: 'review' }, proposal: { status: 'pending', answer: 'Thirty days.' } });
    await t.callAs(ADMIN, 'POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'Riley' });

    const waited = await t.callAs(CONSUMER, 'GET', `${url}/wait?timeout_s=1`);
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      status: 'accepted',
      waiting: null,
      gives_up_at: null,
      proposal: { id: reply.body.proposal_id, status: 'accepted', answer: 'Thirty days.', provenance: { expert_name: 'Dana Smith' }, decision: { decided_by: 'Riley' } },
    });
    // The proposal route itself stays closed to the consumer: the record is all it needs.
    expect((await t.callAs(CONSUMER, 'GET', `/api/v1/proposals/${reply.body.proposal_id}`)).status).toBe(403);
  });
});

describe('following a request step by step', () => {
  it('the long poll with changed_from answers at the first change, not only at the decision', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { body } = await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody({ consumer_id: 'billing-bot' }));
    const seen = (await t.callAs(CONSUMER, 'GET', `/api/v1/requests/${body.request_id}`)).body;
    const waiting = t.callAs(CONSUMER, 'GET', `/api/v1/requests/${body.request_id}/wait?timeout_s=50&changed_from=${seen.updated_at}`);
    t.clock.advance(60_000);
    await t.callAs(ADMIN, 'POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
    const changed = await waiting;
    expect(changed.body).toMatchObject({ status: 'proposed', waiting: { why: 'review' }, proposal: { answer: 'Thirty days.' } });
    expect(changed.body.updated_at).not.toBe(seen.updated_at);
  });

  it('changed_from must be a time', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { body } = await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody({ consumer_id: 'billing-bot' }));
    const bad = await t.callAs(CONSUMER, 'GET', `/api/v1/requests/${body.request_id}/wait?timeout_s=1&changed_from=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('bad_request');
  });
});

describe('topics are discoverable', () => {
  it('GET /topics lists every topic with its experts, who is available now and its fallback, for any token', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    await t.call('POST', '/api/v1/experts/lee/mute', {});
    const topics = await t.callAs(CONSUMER, 'GET', '/api/v1/topics');
    expect(topics.status).toBe(200);
    expect(topics.body).toEqual([
      { topic: 'billing', experts: 2, available_now: 1, fallback: null },
      { topic: 'deployments', experts: 1, available_now: 1, fallback: null },
      { topic: 'invoices', experts: 1, available_now: 1, fallback: null },
      { topic: 'kubernetes', experts: 1, available_now: 1, fallback: null },
      { topic: 'payments', experts: 1, available_now: 0, fallback: null },
      { topic: 'security', experts: 0, available_now: 0, fallback: 'sam' },
    ]);
  });

  it('a question on a topic nobody takes fails naming the closest known topics', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const misspelt = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'biling' }));
    expect(misspelt.body).toMatchObject({ status: 'failed', reason: { code: 'no_expert_found' } });
    expect(misspelt.body.reason.message).toBe('No expert takes the topic "biling" (exactly or by a similar topic), and it has no fallback expert. Closest known topics: "billing".');
    const far = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'gardening' }));
    expect(far.body.reason.message).toMatch(/No known topic is close; list them with GET \/api\/v1\/topics\.$/);
  });
});
