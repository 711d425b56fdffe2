import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

const ids = (body: { items: Array<{ id: string }> }) => body.items.map((r) => r.id);

describe('GET /requests filters', () => {
  it('filters by topic (normalized) and searches the question text, combinable with status and consumer, paged', async () => {
    t = await buildTestApp();
    const a = (await t.call('POST', '/api/v1/requests', submitBody({ topic: 'Billing', question: 'What is the 50% refund rule?' }))).body.request_id;
    const b = (await t.call('POST', '/api/v1/requests', submitBody({ topic: 'kubernetes', question: 'Which REFUND window applies to pods?' }))).body.request_id;
    const c = (await t.call('POST', '/api/v1/requests', submitBody({ topic: 'billing', question: 'Who signs invoices?', consumer_id: 'ledger' }))).body.request_id;

    expect(ids((await t.call('GET', '/api/v1/requests?topic=%20BILLING%20')).body)).toEqual([c, a]);
    expect(ids((await t.call('GET', '/api/v1/requests?q=refund')).body)).toEqual([b, a]);
    expect(ids((await t.call('GET', '/api/v1/requests?q=refund&topic=billing')).body)).toEqual([a]);
    expect(ids((await t.call('GET', '/api/v1/requests?topic=billing&consumer_id=ledger')).body)).toEqual([c]);
    // Words, not substrings: each searched word starts a word of the question, in any case; punctuation separates.
    expect(ids((await t.call('GET', '/api/v1/requests?q=50%25')).body)).toEqual([a]);
    expect(ids((await t.call('GET', '/api/v1/requests?q=REF%20rule')).body)).toEqual([a]);
    expect(ids((await t.call('GET', '/api/v1/requests?q=fund')).body)).toEqual([]);

    const first = (await t.call('GET', '/api/v1/requests?topic=billing&limit=1')).body;
    expect(ids(first)).toEqual([c]);
    expect(ids((await t.call('GET', `/api/v1/requests?topic=billing&limit=1&cursor=${first.next_cursor}`)).body)).toEqual([a]);
  });

  it('refuses an empty, wordless or overlong search with the SPEC error shape', async () => {
    t = await buildTestApp();
    for (const query of ['q=', 'q=_', 'q=%25%20%3F', `q=${'x'.repeat(201)}`, 'topic=']) {
      const res = await t.call('GET', `/api/v1/requests?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
    }
  });
});

describe('POST /experts/{id}/mute', () => {
  it('mutes the expert, passes their open asks on along the chain, audits who muted, and unmute undoes it', async () => {
    t = await buildTestApp();
    const id = (await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }))).body.request_id;
    const res = await t.call('POST', '/api/v1/experts/dana/mute', { muted_by: 'alice' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'dana', muted: true, open_asks: 0 });
    const request = (await t.call('GET', `/api/v1/requests/${id}`)).body;
    expect(request.asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state])).toEqual([['dana', 'skipped'], ['lee', 'open']]);
    const trail = (await t.call('GET', `/api/v1/audit?request_id=${id}`)).body;
    expect(trail.find((e: { type: string }) => e.type === 'muted')).toMatchObject({ actor: 'reviewer:alice' });

    // No new asks while muted.
    const next = (await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }))).body;
    const asks = (await t.call('GET', `/api/v1/requests/${next.request_id}`)).body.asks as Array<{ expert_id: string; state: string }>;
    expect(asks.filter((a) => a.expert_id === 'dana' && a.state === 'open')).toEqual([]);
    expect((await t.call('POST', '/api/v1/experts/dana/unmute')).body.muted).toBe(false);
  });

  it('404 for an unknown expert, 400 for a bad body; nothing changes', async () => {
    t = await buildTestApp();
    expect((await t.call('POST', '/api/v1/experts/nobody/mute')).status).toBe(404);
    const bad = await t.call('POST', '/api/v1/experts/dana/mute', { muted_by: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect((await t.call('GET', '/api/v1/experts')).body[0].muted).toBe(false);
  });

  it('is for admins: a reviewer token gets 403', async () => {
    t = await buildTestApp({ token: 'admin-token', credentials: [{ name: 'rita', role: 'reviewer', token: 'reviewer-token' }] });
    expect((await t.callAs('reviewer-token', 'POST', '/api/v1/experts/dana/mute')).status).toBe(403);
    expect((await t.callAs('admin-token', 'POST', '/api/v1/experts/dana/mute')).body.muted).toBe(true);
  });
});
