import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { eventReader } from '../support/sse-reader.js';

const TOKEN = 'queue-test-token';
let t: TestApp;
afterEach(async () => t.close());

/** Submits a request and answers it as the expert it went to; returns the ids. */
async function proposed(overrides: Record<string, unknown> = {}, answer = 'Thirty days from the invoice date.') {
  const submitted = await t.call('POST', '/api/v1/requests', submitBody(overrides));
  const requestId: string = submitted.body.request_id;
  const request = (await t.call('GET', `/api/v1/requests/${requestId}`)).body;
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: request.asks[0].expert_id, text: answer, request_id: requestId });
  expect(reply.body.outcome).toBe('proposed');
  return { requestId, proposalId: reply.body.proposal_id as string };
}

describe('GET /api/v1/queue', () => {
  it('joins each pending proposal with the question, topic, consumer and reason of its request', async () => {
    t = await buildTestApp({ token: TOKEN });
    expect((await t.call('GET', '/api/v1/queue')).body).toEqual([]);
    const { requestId, proposalId } = await proposed({ topic: '  Billing ', kind: 'answer' });

    const { status, body } = await t.call('GET', '/api/v1/queue');
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0].request).toEqual({
      id: requestId,
      consumer_id: 'billing-bot',
      kind: 'answer',
      topic: 'billing',
      question: 'What is the grace period for disputed invoices?',
      // Without an LLM the expert is asked the raw question (SPEC §13).
      asked_question: 'What is the grace period for disputed invoices?',
      asked_because: 'the invoice total does not match the ledger',
      status: 'proposed',
      created_at: expect.stringMatching(/Z$/),
    });
    // The proposal is exactly what GET /proposals/{id} answers; GET /proposals keeps the seed's shape.
    const single = (await t.call('GET', `/api/v1/proposals/${proposalId}`)).body;
    expect(body[0].proposal).toEqual(single);
    const pending = (await t.call('GET', '/api/v1/proposals?status=pending')).body;
    expect(pending).toEqual([single]);
    expect(pending[0]).not.toHaveProperty('request');
  });

  it('lists oldest first and drops decided proposals', async () => {
    t = await buildTestApp({ token: TOKEN });
    const first = await proposed({ question: 'First?' });
    t.clock.advance(1_000);
    const second = await proposed({ question: 'Second?', topic: 'deployments' });
    t.clock.advance(1_000);
    const third = await proposed({ question: 'Third?', topic: 'kubernetes' });
    await t.call('POST', `/api/v1/proposals/${second.proposalId}/accept`, { decided_by: 'alice' });
    const ids = (await t.call('GET', '/api/v1/queue')).body.map((i: { proposal: { id: string } }) => i.proposal.id);
    expect(ids).toEqual([first.proposalId, third.proposalId]);
  });

  it('gzips the queue for a client that takes it (the web UI), and shows each decision in it', async () => {
    t = await buildTestApp({ token: TOKEN });
    const read = async (encoding: string) => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/queue', headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': encoding } });
      expect([res.statusCode, res.headers.vary]).toEqual([200, 'accept-encoding']);
      const gzipped = res.headers['content-encoding'] === 'gzip';
      const items: Array<{ proposal: { id: string } }> = JSON.parse((gzipped ? gunzipSync(res.rawPayload) : res.rawPayload).toString('utf8'));
      return { gzipped, ids: items.map((i) => i.proposal.id) };
    };
    const first = await proposed({ question: 'First?' });
    const second = await proposed({ question: 'Second?', topic: 'deployments' });
    expect(await read('identity')).toEqual({ gzipped: false, ids: [first.proposalId, second.proposalId] });
    expect(await read('gzip, deflate, br')).toEqual({ gzipped: true, ids: [first.proposalId, second.proposalId] });
    await t.call('POST', `/api/v1/proposals/${first.proposalId}/accept`, { decided_by: 'alice' });
    expect(await read('gzip')).toEqual({ gzipped: true, ids: [second.proposalId] });
    expect(await read('identity')).toEqual({ gzipped: false, ids: [second.proposalId] });
  });

  it('needs the bearer token, like every API route, and is in the OpenAPI document', async () => {
    t = await buildTestApp({ token: TOKEN });
    for (const url of ['/api/v1/queue', '/api/v1/queue/events']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
      const wrong = await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer nope' } });
      expect(wrong.statusCode).toBe(401);
    }
    const doc = (await t.call('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/queue', '/api/v1/queue/events']));
  });
});


describe('GET /api/v1/queue/events', () => {
  it('sends the queue on connect and again whenever it changes, and ends when the server closes', async () => {
    t = await buildTestApp({ token: TOKEN });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${base}/api/v1/queue/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = eventReader(res.body!);

    expect(await events.next()).toEqual({ event: 'queue', data: '[]' });

    const { proposalId } = await proposed();
    const added = await events.next();
    expect(added?.event).toBe('queue');
    const items = JSON.parse(added!.data);
    expect(items.map((i: { proposal: { id: string } }) => i.proposal.id)).toEqual([proposalId]);
    expect(items[0].request.asked_because).toBe('the invoice total does not match the ledger');

    await t.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'alice', reason: 'outdated' });
    expect(await events.next()).toEqual({ event: 'queue', data: '[]' });

    // An open stream must not hold the server's shutdown: close() ends it.
    await t.stop();
    expect(await events.next()).toBeNull();
  });

  it('pushes a new proposal and a decision as soon as they commit, without waiting for the poll', async () => {
    // A poll an hour apart: whatever arrives came from the push on commit.
    t = await buildTestApp({ token: TOKEN, queuePollMs: 3_600_000 });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${base}/api/v1/queue/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const events = eventReader(res.body!);
    expect(await events.next()).toEqual({ event: 'queue', data: '[]' });
    const { proposalId } = await proposed();
    expect(JSON.parse((await events.next())!.data).map((i: { proposal: { id: string } }) => i.proposal.id)).toEqual([proposalId]);
    await t.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'alice' });
    expect(await events.next()).toEqual({ event: 'queue', data: '[]' });
    await t.stop();
  });
});
