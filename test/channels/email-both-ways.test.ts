import { afterEach, describe, expect, it } from 'vitest';
import { ASK_ID, composeMail, postfixReport } from '../support/inbound-mail.js';
import { startEmailKit, type EmailKit } from '../support/email-kit.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { submitBody } from '../support/build-test-app.js';

let kit: EmailKit;

/** The List-Unsubscribe header as written, `<https://…>`. */
function unsubscribeOf(mail: { headerLines: ReadonlyArray<{ key: string; line: string }> }): string {
  return mail.headerLines.find((h) => h.key === 'list-unsubscribe')!.line.replace(/^List-Unsubscribe:\s*/i, '');
}
let hook: WebhookReceiver | null = null;
afterEach(async () => {
  await kit?.close();
  await hook?.stop();
  hook = null;
});

/** The expert's reply as their mail client sends it: To the Reply-To, threaded, the ask quoted below. */
async function replyTo(ask: { messageId?: string | undefined; replyTo?: { value: Array<{ address?: string | undefined }> } | undefined; subject?: string | undefined; text?: string | undefined }, from: string, text: string): Promise<Buffer> {
  const quoted = (ask.text ?? '').split('\n').map((line) => `> ${line}`).join('\n');
  return composeMail({
    from,
    to: ask.replyTo!.value[0]!.address!,
    subject: `Re: ${ask.subject}`,
    inReplyTo: ask.messageId,
    references: [ask.messageId!],
    messageId: `<reply-${Math.random().toString(36).slice(2)}@acme.example>`,
    text: `${text}\n\nOn Mon, 7 Dec 2026 at 10:00, Acme expertq <expertq@acme.example> wrote:\n${quoted}\n`,
  });
}

describe('email both ways', () => {
  it('asks by mail, takes the reply without the quote, and delivers the accepted answer', async () => {
    kit = await startEmailKit();
    hook = new WebhookReceiver();
    const url = await hook.start();
    expect((await kit.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'webhook', url } })).status).toBeLessThan(300);
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'billing-bot' }));
    expect(submitted.status).toBeLessThan(300);

    const [ask] = await kit.mails();
    expect((ask!.to as { value: Array<{ address: string }> }).value[0]!.address.toLowerCase()).toBe('dana@acme.example');
    expect(ask!.subject).toMatch(/^Question from Acme: /);
    expect(ask!.headers.get('auto-submitted')).toBe('auto-generated');
    expect(unsubscribeOf(ask!)).toMatch(/^<https:\/\/expertq\.acme\.example\/api\/v1\/email\/unsubscribe\?t=/);
    // The six elements, in order, in the text part.
    const text = ask!.text!;
    const order = ["I'm an automated assistant for Acme", 'is asking because', 'Question:', 'one- or two-sentence reply', 'recorded with your name', 'mute'];
    const at = order.map((part) => text.indexOf(part));
    expect(at.every((i) => i >= 0), text).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);

    const view = await kit.call('GET', `/api/v1/requests/${submitted.body.request_id}`);
    expect(view.body.asked).toContainEqual(expect.objectContaining({ expert_id: 'dana', channel: 'email' }));

    // Dana answers from her mail client; the route takes it once, however often it is posted.
    const reply = await replyTo(ask!, 'Dana Smith <dana@acme.example>', 'Refunds take 30 days.');
    expect((await kit.inbound(reply)).status).toBe(200);
    expect((await kit.inbound(reply)).body).toMatchObject({ outcome: 'duplicate' });
    const queue = await kit.call('GET', '/api/v1/proposals?status=pending');
    expect(queue.body.map((p: { answer: string }) => p.answer)).toEqual(['Refunds take 30 days.']);

    expect((await kit.call('POST', `/api/v1/proposals/${queue.body[0].id}/accept`, { decided_by: 'rita' })).status).toBe(200);
    await kit.settle();
    const accepted = hook.received.find((r) => r.json.event === 'proposal_accepted');
    expect((accepted!.json as { proposal: { answer: string } }).proposal.answer).toBe('Refunds take 30 days.');

    // Her thanks thread under the question, on the channel it went out on.
    const thanks = (await kit.mails()).find((m) => /accepted after human review/.test(m.text ?? ''));
    expect(thanks?.inReplyTo).toBe(ask!.messageId);
  });

  it('refuses a reply from anyone but the asked expert, and a forged reply token', async () => {
    kit = await startEmailKit();
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody());
    const [ask] = await kit.mails();
    const forged = await replyTo(ask!, 'Mallory <mallory@evil.example>', 'Refunds are instant.');
    expect((await kit.inbound(forged)).status).toBe(200);
    const tampered = await replyTo({ ...ask!, replyTo: { value: [{ address: ask!.replyTo!.value[0]!.address!.replace(/\+(.)/, (_m, c: string) => `+${c === 'a' ? 'b' : 'a'}`) }] } }, 'Dana Smith <dana@acme.example>', 'Refunds are instant.');
    expect((await kit.inbound(tampered)).status).toBe(200);
    expect((await kit.call('GET', '/api/v1/proposals?status=pending')).body).toEqual([]);
    const audit = (await kit.call('GET', `/api/v1/audit?request_id=${submitted.body.request_id}`)).body;
    expect(audit.filter((e: { type: string }) => e.type === 'ignored_reply').length).toBeGreaterThanOrEqual(1);
    // Both counted for the operator: Mallory's token does not verify for her address, nor the altered one.
    expect(await (await fetch(`${kit.server.url}/metrics`)).text()).toMatch(/^expertq_email_refused_total\{why="bad_token"\} 2$/m);
  });

  it('the inbound route takes only its bearer token and raw MIME', async () => {
    kit = await startEmailKit();
    const mail = await composeMail({ from: 'dana@acme.example', to: 'expertq@acme.example', subject: 'hi', text: 'hello' });
    expect((await kit.inbound(mail, 'wrong')).status).toBe(401);
    const res = await fetch(`${kit.server.url}/api/v1/email/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer inbound-token-for-tests' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  it('one-click unsubscribe mutes the expert; opening the link only asks', async () => {
    kit = await startEmailKit();
    await kit.call('POST', '/api/v1/requests', submitBody());
    const [ask] = await kit.mails();
    const link = unsubscribeOf(ask!).slice(1, -1).replace('https://expertq.acme.example', kit.server.url);
    expect((await fetch(link)).status).toBe(200);
    expect((await kit.call('GET', '/api/v1/experts')).body[0].muted).toBe(false);
    const post = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(post.status).toBe(200);
    await kit.settle();
    expect((await kit.call('GET', '/api/v1/experts')).body[0].muted).toBe(true);
    expect((await fetch(`${link}x`, { method: 'POST' })).status).toBe(400);
  });

  it('a hard bounce moves the question to the next expert; a 5xx from the mail server too', async () => {
    kit = await startEmailKit();
    kit.smtp.rejectRecipient('dana@acme.example', 550);
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody());
    await kit.settle();
    const audit = (await kit.call('GET', `/api/v1/audit?request_id=${submitted.body.request_id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    expect(audit.map((e) => e.type)).toContain('ask_undeliverable');
    const mails = await kit.mails();
    expect(mails.map((m) => (m.to as { value: Array<{ address: string }> }).value[0]!.address)).toEqual(['lee@acme.example']);
  });

  it('an out-of-office reply passes the question on; a hard bounce moves it on too', async () => {
    kit = await startEmailKit();
    const first = (await kit.call('POST', '/api/v1/requests', submitBody())).body;
    const [ask] = await kit.mails();
    const away = await composeMail({
      from: 'Dana Smith <dana@acme.example>',
      to: ask!.replyTo!.value[0]!.address!,
      subject: `Out of office: ${ask!.subject}`,
      inReplyTo: ask!.messageId,
      messageId: '<ooo-1@acme.example>',
      headers: { 'Auto-Submitted': { prepared: true, value: 'auto-replied' } },
      text: 'I am on holiday until Monday.',
    });
    expect((await kit.inbound(away)).status).toBe(200);
    const trail = (await kit.call('GET', `/api/v1/audit?request_id=${first.request_id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    expect(trail.find((e) => e.type === 'passed_on')?.data).toMatchObject({ why: 'away', source: 'email_auto_reply' });
    expect((await kit.mails()).map((m) => (m.to as { value: Array<{ address: string }> }).value[0]!.address.toLowerCase())).toEqual(['dana@acme.example', 'lee@acme.example']);

    // Lee's address bounces for good: with no channel left, the question is passed on as before.
    const leeAsk = (await kit.mails())[1]!;
    const bounce = (await postfixReport({ action: 'failed', status: '5.1.1', diagnostic: 'smtp; 550 5.1.1 <lee@acme.example>: Recipient address rejected' })).replaceAll(ASK_ID, leeAsk.messageId!);
    expect((await kit.inbound(bounce)).status).toBe(200);
    const after = (await kit.call('GET', `/api/v1/audit?request_id=${first.request_id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    expect(after.find((e) => e.type === 'ask_undeliverable')?.data).toMatchObject({ expert_id: 'lee' });
  });
});
