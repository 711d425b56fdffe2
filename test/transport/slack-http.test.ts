import { afterEach, describe, expect, it } from 'vitest';
import { buttonClick, dmMessage, modalSubmission, slackSignature } from '../support/fake-slack.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit;
afterEach(async () => kit?.close());

/** POSTs a raw body to /chat/events with the given headers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function post(body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${kit.server.url}/api/v1/chat/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function firstAsk(): Promise<{ requestId: string; askId: string; ts: string }> {
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit());
  const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
  const askId = request.asks[0].id as string;
  return { requestId: body.request_id, askId, ts: kit.slack.posts('DUDANA')[0]!.response!.ts };
}

describe('Slack over HTTP (POST /api/v1/chat/events)', () => {
  it('answers url_verification with its challenge', async () => {
    kit = await startSlackKit({ mode: 'http' });
    const res = await kit.deliver({ type: 'url_verification', challenge: 'c-123', token: 'legacy' });
    expect(res).toEqual({ status: 200, body: { challenge: 'c-123' } });
  });

  it('refuses a bad or missing signature and a timestamp more than five minutes off, in either direction', async () => {
    kit = await startSlackKit({ mode: 'http' });
    const { requestId, ts } = await firstAsk();
    const body = JSON.stringify(dmMessage('UDANA', 'Thirty days.', { threadTs: ts }));
    const now = Math.floor(kit.clock.now() / 1000);
    const cases: Array<[string, Record<string, string>]> = [
      ['no signature', {}],
      ['wrong secret', slackSignature(body, now, 'not-the-secret')],
      ['tampered body', slackSignature(body.replace('Thirty', 'Ninety'), now)],
      ['six minutes old', slackSignature(body, now - 360)],
      ['six minutes ahead', slackSignature(body, now + 360)],
    ];
    for (const [why, headers] of cases) {
      const res = await post(body, headers);
      expect(res.status, why).toBe(401);
      expect(res.body.error.code, why).toBe('unauthorized');
      expect(res.body.error.message, why).toMatch(/^Not a valid Slack request/);
    }
    expect((await kit.call('GET', `/api/v1/requests/${requestId}`)).body.status).toBe('asked');
    // Within the window, either way, it is accepted.
    expect((await post(body, slackSignature(body, now + 240))).status).toBe(200);
    expect((await kit.call('GET', `/api/v1/requests/${requestId}`)).body.status).toBe('proposed');
  });

  it('runs the whole loop: thread reply, buttons and the modal arrive as signed callbacks', async () => {
    kit = await startSlackKit({ mode: 'http' });
    const first = await firstAsk();
    expect((await kit.deliver(dmMessage('UDANA', 'Thirty days.', { threadTs: first.ts }))).status).toBe(200);
    expect((await kit.call('GET', `/api/v1/requests/${first.requestId}`)).body.status).toBe('proposed');

    const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['USAM'], topic: 'deployments' }));
    const askId = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body.asks[0].id;
    await kit.deliver(buttonClick('USAM', 'expertq_answer', askId));
    expect(kit.slack.callsOf('views.open')).toHaveLength(1);
    await kit.deliver(modalSubmission('USAM', askId, 'Roll back with helm rollback.'));
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('proposed');

    const skipped = (await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['ULEE'] }))).body;
    const leeAsk = (await kit.call('GET', `/api/v1/requests/${skipped.request_id}`)).body.asks[0].id;
    await kit.deliver(buttonClick('ULEE', 'expertq_skip', leeAsk));
    expect((await kit.call('GET', `/api/v1/requests/${skipped.request_id}`)).body.reason.code).toBe('expert_declined');
  });

  it('processes an event Slack retried (X-Slack-Retry-Num, same event id) once', async () => {
    kit = await startSlackKit({ mode: 'http' });
    const { requestId, ts } = await firstAsk();
    const event = dmMessage('UDANA', 'Thirty days.', { threadTs: ts, eventId: 'EvHTTP' });
    for (const retryAttempt of [0, 1, 2, 3]) expect((await kit.deliver(event, { retryAttempt })).status).toBe(200);
    const trail = (await kit.call('GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string }>;
    expect(trail.filter((e) => e.type === 'proposed')).toHaveLength(1);
    expect((await kit.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);
  });

  it('answers 501 in Socket Mode without a signing secret, saying where events arrive', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const res = await post('{}', {});
    expect(res.status).toBe(501);
    expect(res.body.error).toMatchObject({ code: 'not_implemented', message: expect.stringMatching(/Socket Mode/) });
  });
});
