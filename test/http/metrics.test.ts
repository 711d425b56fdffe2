import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { until } from '../support/until.js';

const TOKEN = 'metrics-token';
let t: TestApp;
afterEach(async () => t?.close());

async function scrape(token: string | null = TOKEN): Promise<{ status: number; text: string }> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, text: res.body };
}

describe('GET /metrics', () => {
  it('needs the token (unless server.public_metrics) and is Prometheus text', async () => {
    t = await buildTestApp({ token: TOKEN });
    expect((await scrape(null)).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/^# HELP expertq_requests Requests by status\./m);
  });

  it('counts requests by status, open asks and asks today per expert, the review queue and reviewer reminders', async () => {
    t = await buildTestApp({ token: TOKEN, config: { review: { remind_after: '30m' } } });
    const id = (await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['sam'] }))).body.request_id;
    await t.call('POST', '/api/v1/requests', submitBody({ question: 'Another?' }));
    await t.call('POST', '/api/v1/replies', { expert_id: 'sam', text: 'Yes.', request_id: id });
    t.clock.advance(31 * 60_000);
    await t.service.tick();
    const { text } = await scrape();
    expect(text).toMatch(/^expertq_requests\{status="proposed"\} 1$/m);
    expect(text).toMatch(/^expertq_requests\{status="asked"\} 1$/m);
    expect(text).toMatch(/^expertq_expert_open_asks\{expert="dana"\} 1$/m);
    expect(text).toMatch(/^expertq_expert_asks_today\{expert="sam"\} 1$/m);
    // Every registered expert has a series, 0 for one never asked.
    expect(text).toMatch(/^expertq_expert_open_asks\{expert="sam"\} 0$/m);
    expect(text).toMatch(/^expertq_expert_asks_today\{expert="lee"\} 0$/m);
    expect(text).toMatch(/^expertq_pending_proposals 1$/m);
    expect(text).toMatch(/^expertq_oldest_pending_proposal_age_seconds 1860$/m);
    expect(text).toMatch(/^expertq_review_reminders_total 1$/m);
    expect(text).toMatch(/^expertq_outbox_backlog\{outbox="messages"\} 0$/m);
    // Statuses nobody is in yet are 0, not missing: a failed share can be computed from the start.
    for (const status of ['queued', 'escalated', 'accepted', 'rejected', 'failed']) expect(text).toMatch(new RegExp(`^expertq_requests\\{status="${status}"\\} 0$`, 'm'));
  });

  it('a scrape reads the counts once for every gauge, and the next scrape reads them afresh', async () => {
    t = await buildTestApp({ token: TOKEN });
    // The real store's counts, counted.
    const real = t.store.metrics;
    let reads = 0;
    Object.assign(t.store, { metrics: { counts: () => (reads++, real.counts()), requestsByStatus: () => real.requestsByStatus() } satisfies typeof real });
    await t.call('POST', '/api/v1/requests', submitBody());
    expect((await scrape()).text).toMatch(/^expertq_pending_proposals 0$/m);
    expect(reads).toBe(1);
    await t.call('POST', '/api/v1/requests', submitBody({ question: 'Another?' }));
    expect((await scrape()).text).toMatch(/^expertq_outbox_backlog\{outbox="messages"\} 0$/m);
    expect(reads).toBe(2);
  });

  it('requests by status are counted again at most every 30 s: a scrape answers with the latest counts at once', async () => {
    t = await buildTestApp({ token: TOKEN });
    // At a million requests this count takes about 50 ms; a scrape must not wait for it each time.
    const real = t.store.metrics;
    let counted = 0;
    Object.assign(t.store, { metrics: { counts: () => real.counts(), requestsByStatus: () => real.requestsByStatus().finally(() => counted++) } satisfies typeof real });
    await t.call('POST', '/api/v1/requests', submitBody());
    // The first scrape waits for the first count.
    expect((await scrape()).text).toMatch(/^expertq_requests\{status="asked"\} 1$/m);
    await t.call('POST', '/api/v1/requests', submitBody({ question: 'Another?' }));
    t.clock.advance(29_000);
    expect((await scrape()).text).toMatch(/^expertq_requests\{status="asked"\} 1$/m);
    expect(counted).toBe(1);
    // Past 30 s the scrape still answers at once with the counts it has, and has them counted again.
    t.clock.advance(1_000);
    expect((await scrape()).text).toMatch(/^expertq_requests\{status="asked"\} 1$/m);
    await until(() => counted === 2, 5_000, 'the counts were counted again');
    expect((await scrape()).text).toMatch(/^expertq_requests\{status="asked"\} 2$/m);
    expect(counted).toBe(2);
  });

  it('has the usual process and Node.js series: memory, CPU, event-loop lag', async () => {
    t = await buildTestApp({ token: TOKEN });
    const { text } = await scrape();
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^process_cpu_seconds_total [\d.]+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+/m);
  });
});

describe('answer library metrics', () => {
  /** A pending proposal offered from the library: a reworded question of a curated entry's. */
  async function reusedProposal(question: string): Promise<string> {
    const id = (await t.call('POST', '/api/v1/requests', submitBody({ question }))).body.request_id as string;
    const request = (await t.call('GET', `/api/v1/requests/${id}`)).body;
    expect(request.proposal.provenance.transport).toBe('library');
    return request.proposal.id as string;
  }

  it('counts entries by status (re-counted at most every 30 s) and reused proposals by what the reviewer decided', async () => {
    t = await buildTestApp({ token: TOKEN, config: { library: { verify_after: '30d' } } });
    let text = (await scrape()).text;
    for (const status of ['active', 'stale', 'retired']) expect(text).toMatch(new RegExp(`^expertq_library_entries\\{status="${status}"\\} 0$`, 'm'));
    for (const outcome of ['offered', 'accepted', 'returned', 'rejected']) expect(text).toMatch(new RegExp(`^expertq_reuse_total\\{outcome="${outcome}"\\} 0$`, 'm'));

    await t.call('POST', '/api/v1/answers', { topic: 'billing', question: 'How long is the grace period for disputed invoices?', answer: '30 days.', expert_id: 'dana' });
    await t.call('POST', `/api/v1/proposals/${await reusedProposal('What is the grace period for disputed invoices?')}/accept`, { decided_by: 'rita' });
    await t.call('POST', `/api/v1/proposals/${await reusedProposal('Grace period for disputed invoices, how long?')}/reject`, { decided_by: 'rita', reason: 'Not it.' });
    await t.call('POST', `/api/v1/proposals/${await reusedProposal('The grace period for disputed invoices is?')}/return`, { decided_by: 'rita' });
    // An expert's own answer accepted is not a reuse.
    const own = (await t.call('POST', '/api/v1/requests', submitBody({ question: 'Own answer?', target_experts: ['sam'] }))).body.request_id;
    const ownProposal = (await t.call('POST', '/api/v1/replies', { expert_id: 'sam', text: 'Mine.', request_id: own })).body.proposal_id;
    await t.call('POST', `/api/v1/proposals/${ownProposal}/accept`, { decided_by: 'rita' });
    await t.call('POST', '/api/v1/answers', { topic: 'billing', question: 'Old FAQ?', answer: 'Old.', expert_id: 'dana', verified_at: '2026-09-01T00:00:00.000Z' });

    text = (await scrape()).text;
    expect(text).toMatch(/^expertq_reuse_total\{outcome="offered"\} 3$/m);
    expect(text).toMatch(/^expertq_reuse_total\{outcome="accepted"\} 1$/m);
    expect(text).toMatch(/^expertq_reuse_total\{outcome="rejected"\} 1$/m);
    expect(text).toMatch(/^expertq_reuse_total\{outcome="returned"\} 1$/m);
    // The entry figures are those of the first count until 30 s have passed; then counted again in the background.
    expect(text).toMatch(/^expertq_library_entries\{status="active"\} 0$/m);
    t.clock.advance(30_000);
    await scrape();
    await until(async () => /^expertq_library_entries\{status="active"\} 2$/m.test((await scrape()).text), 5_000, 'the entries were counted again');
    text = (await scrape()).text;
    expect(text).toMatch(/^expertq_library_entries\{status="stale"\} 1$/m);
    expect(text).toMatch(/^expertq_library_entries\{status="retired"\} 0$/m);
  });
});

describe('latency metrics', () => {
  it('times HTTP requests by route pattern (never the raw URL) and status, and scheduler ticks', async () => {
    t = await buildTestApp({ token: TOKEN });
    const id = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id;
    await t.call('GET', `/api/v1/requests/${id}`);
    await t.call('GET', '/api/v1/requests/req_missing');
    await t.service.tick();
    await t.service.tick();
    const { text } = await scrape();
    expect(text).toMatch(/^expertq_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/requests",status_code="200"\} 1$/m);
    expect(text).toMatch(/^expertq_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/requests\/:id",status_code="200"\} 1$/m);
    expect(text).toMatch(/^expertq_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/requests\/:id",status_code="404"\} 1$/m);
    expect(text).not.toContain(id);
    expect(text).toMatch(/^expertq_scheduler_tick_seconds_count 2$/m);
    expect(text).toMatch(/^expertq_scheduler_tick_seconds_bucket\{le="\+Inf"\} 2$/m);
  });
});
