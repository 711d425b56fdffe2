import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody, type TestApp } from '../support/build-test-app.js';
import { eventReader, type SseEvent } from '../support/sse-reader.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const ADMIN = 'admin-token';
const SEC_1 = 'sec-one-token';
const SEC_2 = 'sec-two-token';
const BILLING = 'billing-reviewer-token';
const COMPLIANCE = 'compliance-token';
const credentials = [
  { name: 'Sec One', role: 'reviewer' as const, token: SEC_1 },
  { name: 'Sec Two', role: 'reviewer' as const, token: SEC_2 },
  { name: 'Bill Reviewer', role: 'reviewer' as const, token: BILLING },
  { name: 'Cora Compliance', role: 'reviewer' as const, token: COMPLIANCE },
];
const TWO_PERSON = { name: 'security', match: { topics: ['security'] }, reviewers: ['token:Sec One', 'token:Sec Two'], approvals: 2 };

let t: TestApp;
/** What each test started, stopped after it in reverse order. */
const started: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const thing of started.splice(0).reverse()) await thing.close();
});

/** An app with these review rules and a webhook consumer of billing-bot's answers. */
async function withRules(rules: unknown[], review: Record<string, unknown> = {}, consumer: Record<string, unknown> = {}, experts = EXAMPLE_EXPERTS): Promise<WebhookReceiver> {
  t = await buildTestApp({ token: ADMIN, credentials, config: { server: { allow_private_webhooks: true }, review: { rules, ...review }, experts } });
  const receiver = new WebhookReceiver();
  started.push(t, { close: () => receiver.stop() });
  const url = await receiver.start();
  const res = await t.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'webhook', url }, ...consumer });
  expect(res.status).toBe(201);
  return receiver;
}

/** A security question answered by Sam (its fallback expert), or a billing one answered by Dana: a pending proposal. */
async function proposed(topic: 'security' | 'billing', answer = 'Rotate the keys every 90 days.'): Promise<{ requestId: string; proposalId: string }> {
  const requestId = (await t.call('POST', '/api/v1/requests', submitBody({ topic }))).body.request_id as string;
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: topic === 'security' ? 'sam' : 'dana', text: answer, request_id: requestId });
  expect(reply.body.proposal_id).toBeTruthy();
  return { requestId, proposalId: reply.body.proposal_id };
}

const accept = (token: string, id: string, body: Record<string, unknown> = {}) => t.callAs(token, 'POST', `/api/v1/proposals/${id}/accept`, body);
const reject = (token: string, id: string, reason = 'not right') => t.callAs(token, 'POST', `/api/v1/proposals/${id}/reject`, { reason });
const eventsOf = (r: WebhookReceiver, type: string) => r.received.filter((e) => e.json.event === type);
const auditTypes = async (requestId: string) => ((await t.call('GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string }>).map((e) => e.type);

describe('a two-person rule for security', () => {
  it('the first accept records a vote ("1 of 2") and the proposal waits; a second reviewer’s accept delivers it once', async () => {
    const r = await withRules([TWO_PERSON]);
    const { requestId, proposalId } = await proposed('security');

    const first = await accept(SEC_1, proposalId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending', approvals_needed: 2, votes: [{ by: 'Sec One', decision: 'accept', note: null, reason: null }], may_vote: ['token:Sec Two'] });
    expect(first.body.message).toBe('Approval recorded: 1 of 2, waiting for a second reviewer.');
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body).toMatchObject({ status: 'pending', approvals_needed: 2, votes: [{ by: 'Sec One' }] });
    expect((await t.call('GET', `/api/v1/requests/${requestId}`)).body.status).toBe('proposed');

    const second = await accept(SEC_2, proposalId);
    expect(second.body).toMatchObject({ status: 'accepted', decision: { decided_by: 'Sec Two' }, votes: [{ by: 'Sec One' }, { by: 'Sec Two' }] });
    expect(second.body.message).toMatch(/^Accepted: 2 of 2 approvals under the review rule "security"/);
    await r.waitFor(1);
    // A late accept is the usual no-op, and nothing is delivered twice.
    const late = await accept(ADMIN, proposalId, { decided_by: 'ada' });
    expect(late.body).toMatchObject({ status: 'accepted', message: 'Already accepted by Sec Two; nothing changed.' });
    expect(eventsOf(r, 'proposal_accepted')).toHaveLength(1);
    const types = await auditTypes(requestId);
    expect(types.filter((x) => x === 'vote')).toHaveLength(2);
    expect(types.filter((x) => x === 'quorum_met')).toHaveLength(1);
    expect(types.filter((x) => x === 'decided')).toHaveLength(1);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN}` } })).body;
    expect(metrics).toContain('expertq_review_votes_total{decision="accept"} 2');
    expect(metrics).toContain('expertq_review_votes_total{decision="reject"} 0');
    // The time from proposal to decision, per rule: one decision under "security".
    expect(metrics).toContain('expertq_review_decision_seconds_count{rule="security"} 1');
  });

  it('the same reviewer accepting twice changes nothing', async () => {
    const r = await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('security');
    await accept(SEC_1, proposalId);
    const again = await accept(SEC_1, proposalId, { note: 'really' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'pending', votes: [{ by: 'Sec One', note: null }] });
    expect(again.body.message).toBe('You already voted to accept this proposal; nothing changed. 1 of 2, waiting for a second reviewer.');
    expect(eventsOf(r, 'proposal_accepted')).toHaveLength(0);
  });

  it('a reviewer who is not the rule’s gets 403 naming the rule and its reviewers, and nothing changes', async () => {
    await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('security');
    const res = await accept(BILLING, proposalId);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toBe('This proposal is governed by the review rule "security": only its reviewers may decide it: token:Sec One, token:Sec Two. Bill Reviewer is not one of them; nothing changed.');
    expect((await reject(BILLING, proposalId)).status).toBe(403);
    expect((await t.callAs(BILLING, 'POST', `/api/v1/proposals/${proposalId}/return`, { instructions: 'more' })).status).toBe(403);
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body).toMatchObject({ status: 'pending', votes: [] });
  });

  it('one rejection rejects at once under veto', async () => {
    const r = await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('security');
    await accept(SEC_1, proposalId);
    const res = await reject(SEC_2, proposalId, 'leaks the key id');
    expect(res.body).toMatchObject({ status: 'rejected', decision: { decided_by: 'Sec Two', reason: 'leaks the key id' } });
    expect(res.body.message).toBe('Rejected: one rejection rejects under the review rule "security".');
    await r.waitFor(1);
    expect(eventsOf(r, 'proposal_rejected')).toHaveLength(1);
  });

  it('without veto a rejection is a vote too, and rejects once as many reject as must approve', async () => {
    await withRules([{ ...TWO_PERSON, veto: false }]);
    const { proposalId } = await proposed('security');
    const first = await reject(SEC_1, proposalId);
    expect(first.body).toMatchObject({ status: 'pending', votes: [{ decision: 'reject', reason: 'not right' }] });
    expect(first.body.message).toBe('Rejection recorded: 0 of 2, waiting for 2 more reviewers; 1 of 2 rejections needed to reject.');
    expect((await reject(SEC_2, proposalId)).body.status).toBe('rejected');
  });

  it('an edit restarts the count: the editor’s accept is the first of the new text', async () => {
    const r = await withRules([TWO_PERSON]);
    const { requestId, proposalId } = await proposed('security', 'rotate keys yearly');
    await accept(SEC_1, proposalId);
    const edited = await accept(SEC_2, proposalId, { answer: 'Rotate the keys every 90 days.' });
    expect(edited.body).toMatchObject({ status: 'pending', answer: 'Rotate the keys every 90 days.', original_answer: 'rotate keys yearly', votes: [{ by: 'Sec Two' }] });
    expect(edited.body.message).toBe('Approval recorded: 1 of 2, waiting for a second reviewer.');
    expect(await auditTypes(requestId)).toContain('votes_reset');
    const done = await accept(SEC_1, proposalId);
    expect(done.body).toMatchObject({ status: 'accepted', answer: 'Rotate the keys every 90 days.', original_answer: 'rotate keys yearly' });
    await r.waitFor(1);
    expect((eventsOf(r, 'proposal_accepted')[0]!.json.proposal as { answer: string }).answer).toBe('Rotate the keys every 90 days.');
  });

  it('sending back ends the vote', async () => {
    await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('security');
    await accept(SEC_1, proposalId);
    const res = await t.callAs(SEC_2, 'POST', `/api/v1/proposals/${proposalId}/return`, { instructions: 'Say which keys.' });
    expect(res.body).toMatchObject({ status: 'rejected', decision: { reason: 'returned' } });
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.votes).toEqual([]);
  });
});

describe('who sees and decides what', () => {
  it('a proposal no rule covers is decided as before: any reviewer, one accept', async () => {
    const r = await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('billing');
    const res = await accept(BILLING, proposalId);
    expect(res.body).toMatchObject({ status: 'accepted', decision: { decided_by: 'Bill Reviewer' }, votes: [], approvals_needed: 1, message: 'Accepted.' });
    await r.waitFor(1);
    expect(eventsOf(r, 'proposal_accepted')).toHaveLength(1);
  });

  it('the queue shows each reviewer what they may decide, and ?mine=true what still waits for their vote', async () => {
    await withRules([TWO_PERSON]);
    const security = await proposed('security');
    const billing = await proposed('billing');
    const queueOf = async (token: string, mine = false) =>
      ((await t.callAs(token, 'GET', `/api/v1/queue${mine ? '?mine=true' : ''}`)).body as Array<{ proposal: { id: string } }>).map((i) => i.proposal.id);
    expect(await queueOf(SEC_1)).toEqual([security.proposalId, billing.proposalId]);
    expect(await queueOf(BILLING)).toEqual([billing.proposalId]);
    await accept(SEC_1, security.proposalId);
    expect(await queueOf(SEC_1, true)).toEqual([billing.proposalId]);
    expect(await queueOf(SEC_2, true)).toEqual([security.proposalId, billing.proposalId]);
    const item = ((await t.callAs(SEC_2, 'GET', '/api/v1/queue')).body as Array<{ proposal: Record<string, unknown> }>)[0]!;
    expect(item.proposal).toMatchObject({ approvals_needed: 2, votes: [{ by: 'Sec One', decision: 'accept' }] });
  });

  it('admins decide rule-covered proposals as one vote, unless review.admins_decide is false', async () => {
    await withRules([TWO_PERSON]);
    const { proposalId } = await proposed('security');
    expect((await accept(ADMIN, proposalId, { decided_by: 'ada' })).body).toMatchObject({ status: 'pending', votes: [{ by: 'ada' }] });
    await t.close();

    await withRules([TWO_PERSON], { admins_decide: false });
    const other = await proposed('security');
    const res = await accept(ADMIN, other.proposalId, { decided_by: 'ada' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/review rule "security"/);
  });

  it('a required sign-off: enough approvals still wait for one of the required reviewers', async () => {
    await withRules([{ name: 'compliance', match: { topics: ['security'] }, reviewers: ['token:Sec One', 'token:Sec Two'], approvals: 2, require: ['token:Cora Compliance'] }]);
    const { proposalId } = await proposed('security');
    await accept(SEC_1, proposalId);
    const two = await accept(SEC_2, proposalId);
    expect(two.body).toMatchObject({ status: 'pending', message: 'Approval recorded: 2 of 2, waiting for a sign-off from one of token:Cora Compliance.' });
    const signed = await accept(COMPLIANCE, proposalId);
    expect(signed.body.status).toBe('accepted');
  });

  it('auto_accept: false makes auto-accepting consumers wait for the rule’s reviewers', async () => {
    const r = await withRules([{ ...TWO_PERSON, approvals: 1, auto_accept: false }], {}, { auto_accept: true });
    const security = await proposed('security');
    await proposed('billing');
    await r.waitFor(1);
    await t.service.idle();
    expect(eventsOf(r, 'proposal').map((e) => (e.json.proposal as { id: string }).id)).not.toContain(security.proposalId);
    expect(eventsOf(r, 'proposal')).toHaveLength(1);
    expect((await accept(SEC_1, security.proposalId)).body.status).toBe('accepted');
  });
});

describe('from the Slack review channel', () => {
  it('the rule’s Slack reviewers vote there; a listed chat reviewer the rule does not name is refused with the rule named', async () => {
    const r = await withRules([{ name: 'security', match: { topics: ['security'] }, reviewers: ['slack:U0SEC1', { name: 'Sid', email: 'sid@acme.example', slack: 'U0SEC2' }], approvals: 2 }]);
    const { proposalId } = await proposed('security');
    const click = (userId: string, userName: string) => t.service.reviewFromChat({ proposalId, userId, userName, action: 'accept' });

    const outsider = await click('U0OTHER', 'Olga');
    expect(outsider).toEqual({ outcome: 'refused', message: 'Only the reviewers of the review rule "security" may decide this one: slack:U0SEC1, Sid; nothing changed.' });
    // Sid signed in by address and Sid in Slack are one person: his second vote changes nothing.
    const bySid = await t.service.decideOrVote(proposalId, 'accepted', { decided_by: 'sid@acme.example', decider: { by: 'sid@acme.example', identities: ['email:sid@acme.example'], admin: false } });
    expect(bySid.message).toBe('Approval recorded: 1 of 2, waiting for a second reviewer.');
    expect(await click('U0SEC2', 'Sid')).toEqual({ outcome: 'recorded', rule: 'security', message: 'You already voted to accept this proposal; nothing changed. 1 of 2, waiting for a second reviewer.' });
    expect(await click('U0SEC1', 'Sec One')).toEqual({ outcome: 'decided', rule: 'security', message: 'Accepted: 2 of 2 approvals under the review rule "security"; it is delivered.' });
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('accepted');
    await r.waitFor(1);
    expect(eventsOf(r, 'proposal_accepted')).toHaveLength(1);
  });
});

describe('the answering expert', () => {
  it('never votes on their own answer, though the rule names them by another identity (409)', async () => {
    const experts = EXAMPLE_EXPERTS.map((e) => (e.id === 'sam' ? { ...e, email: 'sam@acme.example', slack: 'U0SAM' } : e));
    await withRules([{ ...TWO_PERSON, reviewers: [...TWO_PERSON.reviewers, 'email:sam@acme.example'] }], {}, {}, experts);
    const { proposalId } = await proposed('security');
    const asSam = { decided_by: 'sam@acme.example', decider: { by: 'sam@acme.example', identities: ['email:sam@acme.example'], admin: false } };
    await expect(t.service.decideOrVote(proposalId, 'accepted', asSam)).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/Sam Okafor answered this proposal/) });
    expect(await t.service.reviewFromChat({ proposalId, userId: 'U0SAM', userName: 'Sam', action: 'accept' })).toMatchObject({ outcome: 'refused' });
    expect((await t.call('GET', `/api/v1/proposals/${proposalId}`)).body).toMatchObject({ status: 'pending', votes: [] });
  });
});

describe('the live queue under review rules', () => {
  it('each stream carries its caller’s queue, and a vote moves a proposal out of a ?mine=true stream', async () => {
    await withRules([TWO_PERSON]);
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const open = async (token: string, query = '') => {
      const res = await fetch(`${base}/api/v1/queue/events${query}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return eventReader(res.body!);
    };
    const ids = (event: SseEvent | null) => (JSON.parse(event!.data) as Array<{ proposal: { id: string } }>).map((i) => i.proposal.id);
    const sec1 = await open(SEC_1, '?mine=true');
    const billing = await open(BILLING);
    expect(ids(await sec1.next())).toEqual([]);
    expect(ids(await billing.next())).toEqual([]);

    const { proposalId } = await proposed('security');
    expect(ids(await sec1.next())).toEqual([proposalId]);
    // The billing reviewer's stream did not show it; it shows the billing proposal that follows.
    const other = await proposed('billing');
    expect(ids(await billing.next())).toEqual([other.proposalId]);
    expect(ids(await sec1.next())).toEqual([proposalId, other.proposalId]);

    await accept(SEC_1, proposalId);
    expect(ids(await sec1.next())).toEqual([other.proposalId]);
    await t.stop();
  });
});
