import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { FROM } from '../support/email-kit.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

let kit: SlackKit | null = null;
let smtp: TestSmtpServer | null = null;
afterEach(async () => {
  await kit?.close();
  await smtp?.close();
  kit = smtp = null;
});

const DANA = { id: 'UDANA', name: 'Dana Smith', topics: ['billing'], email: 'dana@acme.example' };

describe('an expert on Slack and email', () => {
  it('a deactivated Slack account moves the question to email: channel_failed, then asked by email', async () => {
    smtp = await startSmtpServer();
    kit = await startSlackKit({
      mode: 'socket',
      transport: 'channels',
      config: { email: { smtp_url_env: 'SMTP_URL', from: FROM }, server: { public_url: 'https://expertq.acme.example' }, experts: [DANA] },
      env: { SMTP_URL: smtp.url },
    });
    expect((await kit.call('GET', '/api/v1/experts')).body[0].reached_on).toEqual(['slack', 'email']);
    kit.slack.script('chat.postMessage', { body: { ok: false, error: 'account_inactive' } });
    const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'] }));
    await kit.settle();

    expect(smtp.messages).toHaveLength(1);
    const mail = await simpleParser(smtp.messages[0]!.raw);
    expect((mail.to as { value: Array<{ address: string }> }).value[0]!.address).toBe('dana@acme.example');
    const trail = (await kit.call('GET', `/api/v1/audit?request_id=${body.request_id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    expect(trail.map((e) => e.type)).toEqual(expect.arrayContaining(['asked', 'channel_failed']));
    const [first, failed, second] = trail.filter((e) => e.type === 'asked' || e.type === 'channel_failed');
    expect(first!.data).toMatchObject({ channel: 'slack' });
    expect(failed!.data).toMatchObject({ channel: 'slack', error: 'account_inactive' });
    expect(second!.data).toMatchObject({ channel: 'email' });
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('asked');
    expect(request.asks).toEqual([expect.objectContaining({ expert_id: 'UDANA', state: 'open', channel: 'email' })]);
  });
});
