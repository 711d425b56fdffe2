import { afterEach, describe, expect, it } from 'vitest';
import { KNOWN_KEYS_REFRESH_MS } from '../../src/service/engine/known-keys.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => t.close());

/** A submit answered as it left the server: status, Retry-After header and body. */
async function submit(overrides: Record<string, unknown> = {}) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/requests', payload: submitBody(overrides) });
  await t.service.idle();
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: JSON.parse(res.body) };
}

const hook = (id: string, extra: Record<string, unknown> = {}) => ({ id, handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'http://127.0.0.1:9/x' }, ...extra });

async function requestsOf(consumerId: string): Promise<string[]> {
  return (await t.call('GET', `/api/v1/requests?consumer_id=${consumerId}`)).body.items.map((r: { id: string }) => r.id);
}

describe('daily request quota per consumer', () => {
  it('a quota given on another instance applies here within the refresh period', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
    expect((await submit()).status).toBe(200);
    // Another instance on the same database gives billing-bot a quota of 1 (already used today).
    const registered = (await t.call('POST', '/api/v1/consumers', hook('billing-bot'))).status;
    expect(registered).toBe(201);
    const consumer = (await t.service.store.consumers.get('billing-bot'))!;
    await t.service.store.transaction((tx) => tx.consumers.upsert({ ...consumer, max_requests_per_day: 1 }));
    t.clock.advance(KNOWN_KEYS_REFRESH_MS);
    expect((await submit({ question: 'A second question?' })).status).toBe(429);
  });

  it('takes the default quota, then answers 429 until the next midnight in the organisation\'s zone, and takes requests again the next day', async () => {
    t = await buildTestApp({ config: { org: { name: 'Acme', timezone: 'Europe/Berlin' }, defaults: { max_requests_per_consumer_per_day: 2 } } });
    // 10:00 UTC is 11:00 in Berlin: the day resets at 23:00 UTC, 13 hours away.
    expect((await submit()).status).toBe(200);
    expect((await submit({ question: 'A second question?' })).status).toBe(200);

    const refused = await submit({ question: 'A third question?' });
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe(String(13 * 3600));
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('2026-11-23T23:00:00.000Z'),
      details: [{ path: 'consumer_id', limit: 2, resets_at: '2026-11-23T23:00:00.000Z' }],
    });
    // The refused submit left nothing behind: no request, no ask.
    expect(await requestsOf('billing-bot')).toHaveLength(2);
    expect(t.messages()).toHaveLength(2);
    // Another consumer has its own count.
    expect((await submit({ consumer_id: 'crm-bot' })).status).toBe(200);

    t.clock.set('2026-11-23T22:59:59.500Z');
    expect((await submit({ question: 'Just before midnight?' })).retryAfter).toBe('1');
    t.clock.set('2026-11-23T23:00:00.000Z');
    expect((await submit({ question: 'A new day?' })).status).toBe(200);
  });

  it('a consumer\'s own max_requests_per_day replaces the default; no default and no own quota means no limit', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true, public_metrics: true } } });
    expect((await t.call('POST', '/api/v1/consumers', hook('billing-bot', { max_requests_per_day: 1 }))).status).toBe(201);
    expect((await t.call('GET', '/api/v1/consumers')).body[0]).toMatchObject({ id: 'billing-bot', max_requests_per_day: 1 });

    expect((await submit()).status).toBe(200);
    expect((await submit({ question: 'Again?' })).status).toBe(429);
    for (let i = 0; i < 6; i++) expect((await submit({ consumer_id: 'free-bot', question: `Question ${i}?` })).status).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^expertq_rate_limited_submits_total 1$/m);
  });

  it('a submit deduplicated onto an existing request is answered even at the quota, and does not count', async () => {
    t = await buildTestApp({ config: { defaults: { max_requests_per_consumer_per_day: 1 } } });
    const first = await submit({ dedup_key: 'invoice-42' });
    expect(first.status).toBe(200);

    const again = await submit({ dedup_key: 'invoice-42' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ request_id: first.body.request_id, status: 'deduped_open', request_status: 'asked' });
    expect((await submit({ dedup_key: 'invoice-43' })).status).toBe(429);
  });

  it('refuses a max_requests_per_day that is not a whole number of at least 1', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
    for (const bad of [0, -3, 1.5, '10']) {
      const res = await t.call('POST', '/api/v1/consumers', hook('billing-bot', { max_requests_per_day: bad }));
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'max_requests_per_day' })]);
    }
    expect((await t.call('GET', '/api/v1/consumers')).body).toEqual([]);
  });
});
