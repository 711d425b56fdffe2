import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

const ADMIN = 'admin-token-1';
const REVIEWER = 'reviewer-token-1';
const BILLING = 'consumer-token-1';
const CRM = 'consumer-token-2';
const credentials = [
  { name: 'Riley Reviewer', role: 'reviewer' as const, token: REVIEWER },
  { name: 'billing-bot', role: 'consumer' as const, token: BILLING },
  { name: 'crm-bot', role: 'consumer' as const, token: CRM },
];
const DAY = 86_400_000;

let t: TestApp;
afterEach(async () => t?.close());

const faq = (over: Record<string, unknown> = {}) => ({ topic: 'Billing', question: 'How long is the refund window?', answer: 'Thirty days from the invoice.', expert_id: 'dana', ...over });

/** A request of `token`'s consumer, answered by whoever was asked and accepted by the reviewer: one library entry. */
async function accepted(token: string, consumer: string, question: string, answer: string): Promise<{ requestId: string; answerId: string }> {
  const requestId = (await t.callAs(token, 'POST', '/api/v1/requests', submitBody({ consumer_id: consumer, question }))).body.request_id as string;
  const [ask] = await t.service.store.asks.listFor(requestId);
  const reply = await t.callAs(ADMIN, 'POST', '/api/v1/replies', { expert_id: ask!.expert_id, text: answer, request_id: requestId });
  expect((await t.callAs(REVIEWER, 'POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, {})).status).toBe(200);
  const entry = (await t.callAs(ADMIN, 'GET', '/api/v1/answers')).body.items.find((a: { request_id: string }) => a.request_id === requestId);
  return { requestId, answerId: entry.id };
}

describe('the answer library over HTTP', () => {
  it('an admin adds a curated entry; search ranks by relevance with a score, lists newest first without words, and reads one entry', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const added = await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ verified_at: '2026-11-01T00:00:00.000Z' }));
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      id: expect.stringMatching(/^ans_/), topic: 'billing', kind: 'answer', expert_name: 'Dana Smith', request_id: null, proposal_id: null,
      accepted_by: 'admin', verified_at: '2026-11-01T00:00:00.000Z', status: 'active', reuse_count: 0, retired: null,
    });
    expect(added.body).not.toHaveProperty('score');
    await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ question: 'Which currency do invoices use?', answer: 'Euros.' }));
    await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ topic: 'payments', question: 'Can a refund be split? Refund rules', answer: 'One refund per invoice.' }));

    const newest = (await t.callAs(REVIEWER, 'GET', '/api/v1/answers')).body;
    expect(newest.items.map((a: { question: string }) => a.question)).toEqual(['Can a refund be split? Refund rules', 'Which currency do invoices use?', 'How long is the refund window?']);
    const found = (await t.callAs(REVIEWER, 'GET', '/api/v1/answers?q=Refund%20window')).body;
    expect(found.items.map((a: { question: string }) => a.question)).toEqual(['How long is the refund window?', 'Can a refund be split? Refund rules']);
    expect(found.items[0].score).toBeGreaterThan(found.items[1].score);
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers?q=refund&topic=%20Payments')).body.items).toHaveLength(1);
    const page = (await t.callAs(REVIEWER, 'GET', '/api/v1/answers?q=refund&limit=1')).body;
    expect(page.next_cursor).not.toBeNull();
    expect((await t.callAs(REVIEWER, 'GET', `/api/v1/answers?q=refund&limit=1&cursor=${page.next_cursor}`)).body.items[0].id).not.toBe(page.items[0].id);

    expect((await t.callAs(REVIEWER, 'GET', `/api/v1/answers/${added.body.id}`)).body).toEqual(added.body);
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers/ans_nope')).status).toBe(404);
  });

  it('refuses a curated entry from an unknown expert, verified in the future, or with unknown fields; only an admin adds', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const unknown = await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ expert_id: 'nobody' }));
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'bad_request', details: [{ path: 'expert_id' }] } } });
    expect((await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ verified_at: '2027-01-01T00:00:00.000Z' }))).status).toBe(400);
    expect((await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ colour: 'red' }))).status).toBe(400);
    expect((await t.callAs(REVIEWER, 'POST', '/api/v1/answers', faq())).status).toBe(403);
    expect((await t.callAs(BILLING, 'POST', '/api/v1/answers', faq())).status).toBe(403);
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/answers')).body.items).toEqual([]);
  });

  it('imports all entries or, if one is wrong, none, naming each wrong one by position', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const bad = await t.callAs(ADMIN, 'POST', '/api/v1/answers/import', { entries: [faq(), faq({ expert_id: 'nobody' }), faq(), faq({ verified_at: '2099-01-01T00:00:00.000Z' })] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(['entries.1.expert_id', 'entries.3.verified_at']);
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/answers')).body.items).toEqual([]);
    // Entries of the wrong shape and entries naming an unknown expert, together: each one is named.
    const { answer: _answer, ...noAnswer } = faq();
    const mixed = await t.callAs(ADMIN, 'POST', '/api/v1/answers/import', { entries: [faq(), null, noAnswer, faq({ expert_id: 'nobody' }), faq({ verified_at: '2099-01-01T00:00:00.000Z' })] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details.map((d: { path: string }) => d.path)).toEqual(['entries.1', 'entries.2.answer', 'entries.3.expert_id', 'entries.4.verified_at']);
    expect(mixed.body.error.message).toMatch(/^4 entries are not valid, so none was added: entries\.1 /);
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/answers')).body.items).toEqual([]);
    const good = await t.callAs(ADMIN, 'POST', '/api/v1/answers/import', { entries: [faq(), faq({ question: 'Second?' })] });
    expect(good).toMatchObject({ status: 201, body: { imported: 2 } });
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/answers')).body.items).toHaveLength(2);
  });

  it('retiring is once only: who, when and why stay on the entry and in its request’s audit; a consumer may not retire', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { requestId, answerId } = await accepted(BILLING, 'billing-bot', 'What is the grace period?', 'Thirty days.');
    expect((await t.callAs(BILLING, 'POST', `/api/v1/answers/${answerId}/retire`, { reason: 'mine' })).status).toBe(403);
    expect((await t.callAs(ADMIN, 'POST', `/api/v1/answers/${answerId}/retire`, { reason: 'no name' })).status).toBe(400);

    const retired = await t.callAs(REVIEWER, 'POST', `/api/v1/answers/${answerId}/retire`, { reason: 'The grace period is now 45 days.' });
    expect(retired).toMatchObject({ status: 200, body: { status: 'retired', retired: { by: 'Riley Reviewer', reason: 'The grace period is now 45 days.', at: new Date(t.clock.now()).toISOString() } } });
    t.clock.advance(DAY);
    const again = await t.callAs(ADMIN, 'POST', `/api/v1/answers/${answerId}/retire`, { decided_by: 'ops', reason: 'other' });
    expect(again.body).toEqual(retired.body);
    const trail = (await t.callAs(ADMIN, 'GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string; actor: string; data: unknown }>;
    expect(trail.filter((e) => e.type === 'answer_retired')).toEqual([
      expect.objectContaining({ actor: 'reviewer:Riley Reviewer', data: { answer_id: answerId, reason: 'The grace period is now 45 days.' } }),
    ]);
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers?status=retired')).body.items.map((a: { id: string }) => a.id)).toEqual([answerId]);
    expect((await t.callAs(REVIEWER, 'POST', '/api/v1/answers/ans_nope/retire', { reason: 'x' })).status).toBe(404);
  });

  it('an entry verified longer ago than library.verify_after reads stale; consumers see active entries only', async () => {
    t = await buildTestApp({ token: ADMIN, credentials, config: { library: { verify_after: '30d' } } });
    const old = (await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ verified_at: '2026-10-01T00:00:00.000Z' }))).body;
    const fresh = (await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ question: 'Fresh refund?' }))).body;
    expect(old.status).toBe('stale');
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers?status=stale')).body.items.map((a: { id: string }) => a.id)).toEqual([old.id]);
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers?status=active')).body.items.map((a: { id: string }) => a.id)).toEqual([fresh.id]);
    expect((await t.callAs(BILLING, 'GET', '/api/v1/answers?q=refund')).body.items.map((a: { id: string }) => a.id)).toEqual([fresh.id]);
    expect((await t.callAs(BILLING, 'GET', '/api/v1/answers?status=stale')).body.items).toEqual([]);
    expect((await t.callAs(BILLING, 'GET', `/api/v1/answers/${old.id}`)).status).toBe(404);
    t.clock.advance(31 * DAY);
    expect((await t.callAs(REVIEWER, 'GET', `/api/v1/answers/${fresh.id}`)).body.status).toBe('stale');
  });

  it('the library in figures: entries by status and the asks reuse has spared, for reviewers and admins only', async () => {
    t = await buildTestApp({ token: ADMIN, credentials, config: { library: { verify_after: '30d' } } });
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers/stats')).body).toEqual({ entries: { active: 0, stale: 0, retired: 0 }, reuse_accepted: 0 });
    await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ verified_at: '2026-10-01T00:00:00.000Z' }));
    const fresh = (await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ question: 'Fresh refund?' }))).body;
    const wrong = (await t.callAs(ADMIN, 'POST', '/api/v1/answers', faq({ question: 'Wrong refund?' }))).body;
    await t.callAs(REVIEWER, 'POST', `/api/v1/answers/${wrong.id}/retire`, { reason: 'Wrong.' });
    // An entry reused twice (accepting a reused proposal counts it on the entry).
    const reused = { ...(await t.store.answers.get(fresh.id))!, id: 'ans_reused', reuse_count: 2 };
    await t.store.transaction((tx) => tx.answers.insert(reused));

    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/answers/stats')).body).toEqual({ entries: { active: 2, stale: 1, retired: 1 }, reuse_accepted: 2 });
    t.clock.advance(31 * DAY);
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/answers/stats')).body).toEqual({ entries: { active: 0, stale: 3, retired: 1 }, reuse_accepted: 2 });
    // Figures across every consumer's requests are not a consumer's to read.
    expect((await t.callAs(BILLING, 'GET', '/api/v1/answers/stats')).status).toBe(403);
  });

  it('with share: all every consumer finds every active entry; with same_consumer only those of its own requests', async () => {
    for (const share of ['all', 'same_consumer'] as const) {
      // Both questions reach an expert: the second is close enough to the first to be offered its answer otherwise.
      t = await buildTestApp({ token: ADMIN, credentials, config: { library: { share, reuse: 'off' } } });
      const billing = await accepted(BILLING, 'billing-bot', 'What is the grace period?', 'Thirty days.');
      const crm = await accepted(CRM, 'crm-bot', 'What is the grace period for partners?', 'Sixty days.');
      const seen = async (token: string) => (await t.callAs(token, 'GET', '/api/v1/answers?q=grace%20period')).body.items.map((a: { id: string }) => a.id).sort();
      if (share === 'all') {
        expect(await seen(BILLING)).toEqual([billing.answerId, crm.answerId].sort());
        expect((await t.callAs(BILLING, 'GET', `/api/v1/answers/${crm.answerId}`)).status).toBe(200);
      } else {
        expect(await seen(BILLING)).toEqual([billing.answerId]);
        expect(await seen(CRM)).toEqual([crm.answerId]);
        expect((await t.callAs(BILLING, 'GET', `/api/v1/answers/${crm.answerId}`)).status).toBe(404);
        expect(await seen(REVIEWER)).toEqual([billing.answerId, crm.answerId].sort());
      }
      await t.close();
    }
  });
});
