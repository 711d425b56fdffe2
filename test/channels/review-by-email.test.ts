import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { composeMail } from '../support/inbound-mail.js';
import { startEmailKit, type EmailKit } from '../support/email-kit.js';
import { submitBody } from '../support/build-test-app.js';

let kit: EmailKit;
afterEach(async () => kit?.close());

/** Dana's reply to the question mail, as her mail client sends it. */
async function danaAnswers(ask: ParsedMail, text: string): Promise<void> {
  const reply = await composeMail({
    from: 'Dana Smith <dana@acme.example>',
    to: (ask.replyTo as { value: Array<{ address: string }> }).value[0]!.address,
    subject: `Re: ${ask.subject}`,
    inReplyTo: ask.messageId,
    references: [ask.messageId!],
    messageId: `<reply-${Math.random().toString(36).slice(2)}@acme.example>`,
    text,
  });
  expect((await kit.inbound(reply)).status).toBe(200);
}

/** The review mail's links, by decision, pointed at the test server. */
function linksOf(mail: ParsedMail): { accept: string; reject: string; return: string } {
  const link = (label: string) => new RegExp(`${label}: (https://\\S+)`).exec(mail.text ?? '')![1]!.replace('https://expertq.acme.example', kit.server.url);
  return { accept: link('Accept'), reject: link('Reject'), return: link('Send back to the expert') };
}

async function pendingReviewMail(reviewers: string[]): Promise<{ links: ReturnType<typeof linksOf>; mail: ParsedMail; requestId: string }> {
  kit = await startEmailKit({ config: { email: { reviewers } } });
  const submitted = await kit.call('POST', '/api/v1/requests', submitBody());
  await danaAnswers((await kit.mails())[0]!, 'Refunds take 30 days.');
  const mail = (await kit.mails()).find((m) => m.subject?.startsWith('Review: '));
  expect(mail, 'a review mail').toBeDefined();
  return { links: linksOf(mail!), mail: mail!, requestId: submitted.body.request_id };
}

const form = (fields: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

describe('review by email', () => {
  it('mails the pending proposal; opening a link decides nothing, its confirmation decides once, as the reviewer', async () => {
    const { links, mail, requestId } = await pendingReviewMail(['Rita@Acme.example']);
    expect((mail.to as { value: Array<{ address: string }> }).value[0]!.address.toLowerCase()).toBe('rita@acme.example');
    expect(mail.text).toContain('Refunds take 30 days.');
    expect(mail.text).toContain('What is the grace period for disputed invoices?');

    // A link scanner (or the reviewer) opening the link: a page, and nothing decided.
    const opened = await fetch(links.accept);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('Refunds take 30 days.');
    expect((await kit.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);

    const confirmed = await fetch(links.accept, form());
    expect(confirmed.status).toBe(200);
    await kit.settle();
    const request = (await kit.call('GET', `/api/v1/requests/${requestId}`)).body;
    expect(request.status).toBe('accepted');
    expect(request.proposal.decision.decided_by).toBe('rita@acme.example');

    // Used: it says so and decides nothing more; the other links find the answer decided.
    expect((await fetch(links.accept, form())).status).toBe(409);
    expect((await fetch(links.reject)).status).toBe(409);
  });

  it('a changed link, an expired one and a rejection without a reason decide nothing', async () => {
    const { links, requestId } = await pendingReviewMail(['rita@acme.example']);
    // One character of the signed value changed, as a careless copy or a forger would.
    const tampered = links.accept.replace(/t=(.)/, (_m, c: string) => `t=${c === 'A' ? 'B' : 'A'}`);
    expect((await fetch(tampered)).status).toBe(400);
    expect((await fetch(tampered, form())).status).toBe(400);
    expect((await fetch(links.reject, form())).status).toBe(400);
    kit.clock.advance(25 * 3_600_000);
    expect((await fetch(links.accept)).status).toBe(400);
    expect((await fetch(links.accept, form())).status).toBe(400);
    expect((await kit.call('GET', `/api/v1/requests/${requestId}`)).body.status).toBe('proposed');
  });

  it('a send-back takes the instructions to the expert; the expert who answered never decides their own answer', async () => {
    const { requestId } = await pendingReviewMail(['dana@acme.example', 'rita@acme.example']);
    const mails = (await kit.mails()).filter((m) => m.subject?.startsWith('Review: '));
    const danas = linksOf(mails.find((m) => (m.to as { value: Array<{ address: string }> }).value[0]!.address === 'dana@acme.example')!);
    expect((await fetch(danas.accept, form())).status).toBe(403);
    expect((await kit.call('GET', `/api/v1/requests/${requestId}`)).body.status).toBe('proposed');

    const ritas = linksOf(mails.find((m) => (m.to as { value: Array<{ address: string }> }).value[0]!.address === 'rita@acme.example')!);
    expect((await fetch(ritas.return, form({ instructions: 'Say whether weekends count.' }))).status).toBe(200);
    await kit.settle();
    const asked = (await kit.mails()).filter((m) => m.subject?.startsWith('Question from Acme'));
    expect(asked.at(-1)!.text).toContain('Say whether weekends count.');
  });

  it('under a two-approval rule each reviewer is mailed once; a vote says where it stands, the second decides, and a reminder goes only to who has not voted', async () => {
    const rule = { name: 'billing-two', match: { topics: ['billing'] }, reviewers: ['email:rita@acme.example', 'tom@acme.example'], approvals: 2 };
    kit = await startEmailKit({ config: { review: { rules: [rule], remind_after: '1h' } } });
    const reviewMails = async () => (await kit.mails()).filter((m) => m.subject?.startsWith('Review: '));
    const to = (m: ParsedMail) => (m.to as { value: Array<{ address: string }> }).value[0]!.address;
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody());
    await danaAnswers((await kit.mails())[0]!, 'Refunds take 30 days.');
    await kit.settle();
    // No review channel and neither is in email.reviewers: one mail each, saying who may vote.
    expect((await reviewMails()).map(to).sort()).toEqual(['rita@acme.example', 'tom@acme.example']);
    const ritas = (await reviewMails()).find((m) => to(m) === 'rita@acme.example')!;
    expect(ritas.text).toContain('0 of 2 approvals under the review rule "billing-two": no votes yet.');

    const recorded = await fetch(linksOf(ritas).accept, form());
    expect(recorded.status).toBe(200);
    expect(await recorded.text()).toContain('Approval recorded: 1 of 2, waiting for a second reviewer.');
    await kit.settle();

    // An hour later Tom, whose vote is missing, is reminded; Rita is not.
    kit.clock.advance(61 * 60_000);
    await kit.server.service.tick();
    await kit.settle();
    const reminders = (await reviewMails()).filter((m) => m.text?.startsWith('Reminder:'));
    expect(reminders.map(to)).toEqual(['tom@acme.example']);
    expect(reminders[0]!.text).toContain('1 of 2 approvals under the review rule "billing-two": rita@acme.example accepted.');

    const toms = linksOf(reminders[0]!);
    const page = await (await fetch(toms.accept)).text();
    expect(page).toContain('May still vote: tom@acme.example.');
    const decided = await fetch(toms.accept, form());
    expect(await decided.text()).toContain('Accepted: 2 of 2 approvals under the review rule &quot;billing-two&quot;; it is delivered.');
    await kit.settle();
    expect((await kit.call('GET', `/api/v1/requests/${submitted.body.request_id}`)).body.status).toBe('accepted');
  });
});
