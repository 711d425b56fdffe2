import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { checkMetrics, HAVE_PROMTOOL } from '../support/promtool.js';

let t: TestApp;
afterEach(async () => t?.close());

describe.runIf(HAVE_PROMTOOL)('GET /metrics and promtool', () => {
  it('passes `promtool check metrics` with every series present: no problem reported', async () => {
    t = await buildTestApp();
    // Requests, an answer, a decision, a library entry, an error answer: every family has samples.
    const id = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id;
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.', request_id: id });
    await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'alice' });
    await t.call('GET', '/api/v1/requests/req_nope');
    await t.service.tick();
    await t.app.inject({ method: 'GET', url: '/metrics' });
    const scrape = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    expect(scrape.body).toMatch(/^expertq_http_request_duration_seconds_count\{/m);
    expect(scrape.body).toMatch(/^nodejs_active_handles\{/m);
    expect(checkMetrics(scrape.body)).toEqual({ status: 0, problems: '' });
  });
});
