import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

/** Submits that arrive together are committed together: each must still come out as if it were alone. */
let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => t.close());

const submitAtOnce = (bodies: Array<Record<string, unknown>>) => Promise.all(bodies.map((b) => t.call('POST', '/api/v1/requests', b)));

describe('submits that arrive at the same moment', () => {
  it('never take an expert past a cap: each sees the asks of those before it', async () => {
    const policy = { max_open_asks_per_expert: 1 };
    const answers = await submitAtOnce(Array.from({ length: 6 }, (_, i) => submitBody({ question: `Grace period for case ${i}?`, routing_policy: policy })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.request_id)).size).toBe(6);

    const experts = (await t.call('GET', '/api/v1/experts')).body as Array<{ id: string; open_asks: number }>;
    expect(experts.find((e) => e.id === 'dana')!.open_asks).toBe(1);
    expect(experts.find((e) => e.id === 'lee')!.open_asks).toBe(1);
    expect(t.messages()).toHaveLength(2);
    const statuses = await Promise.all(answers.map(async (a) => (await t.call('GET', `/api/v1/requests/${a.body.request_id}`)).body.status));
    expect(statuses.filter((s) => s === 'asked')).toHaveLength(2);
    expect(statuses.filter((s) => s === 'queued')).toHaveLength(4);
  });

  it('with one dedup key make one request, which the others join', async () => {
    const answers = await submitAtOnce(['billing-bot', 'crm-bot', 'ledger-bot'].map((consumer_id) => submitBody({ consumer_id, dedup_key: 'invoice-7' })));
    expect(answers.map((a) => a.body.status)).toEqual(['queued', 'deduped_open', 'deduped_open']);
    expect(new Set(answers.map((a) => a.body.request_id)).size).toBe(1);
    expect(t.messages()).toHaveLength(1);
  });

  it('answer one bad submit with its own error and still take the others', async () => {
    const answers = await submitAtOnce([
      submitBody({ question: 'First?' }),
      submitBody({ target_experts: ['nobody'] }),
      submitBody({ topic: 'kubernetes', question: 'Third?' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200]);
    expect(answers[1]!.body.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('target_experts') });
    for (const a of [answers[0]!, answers[2]!]) {
      expect((await t.call('GET', `/api/v1/requests/${a.body.request_id}`)).body.status).toBe('asked');
    }
    expect((await t.call('GET', '/api/v1/requests')).body.items).toHaveLength(2);
  });
});
