import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { dmMessage, type SlackCall } from '../support/fake-slack.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

const REVIEW = { chat: { review_channel: 'CREVIEW', reviewers: ['UREV', 'UDANA'] } };

let kit: SlackKit;
afterEach(async () => kit?.close());

async function start(config: Record<string, unknown> = {}): Promise<SlackKit> {
  kit = await startSlackKit({ mode: 'socket', config });
  return kit;
}

/** A request answered by Dana in her ask's thread: one pending proposal and its review card. */
async function answered(answer = 'Thirty days.', overrides: Record<string, unknown> = {}) {
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'], ...overrides }));
  const askPost = kit.slack.posts('DUDANA').at(-1)!;
  await kit.deliver(dmMessage('UDANA', answer, { threadTs: askPost.response!.ts }));
  const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
  const card = kit.slack.posts('CREVIEW').find((c) => JSON.stringify(c.args.blocks).includes(request.proposal_id))!;
  return { requestId: body.request_id as string, proposalId: request.proposal_id as string, card, askTs: askPost.response!.ts as string };
}

function reviewClick(user: string, actionId: string, proposalId: string, triggerId = `rt-${Math.random()}`) {
  return {
    type: 'block_actions',
    team: { id: 'T1', domain: 'acme' },
    user: { id: user, name: user === 'UREV' ? 'riley' : user.toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: triggerId,
    container: { type: 'message', channel_id: 'CREVIEW' },
    channel: { id: 'CREVIEW' },
    message: { type: 'message', ts: '1700000000.000009', blocks: [] },
    actions: [{ type: 'button', action_id: actionId, block_id: 'expertq_review', value: proposalId, action_ts: '1700000300.000001' }],
  };
}

function reviewForm(user: string, callbackId: string, proposalId: string, text: string, viewId = `VR-${Math.random()}`) {
  return {
    type: 'view_submission',
    team: { id: 'T1', domain: 'acme' },
    user: { id: user, name: user === 'UREV' ? 'riley' : user.toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `rt-${Math.random()}`,
    view: { id: viewId, type: 'modal', callback_id: callbackId, private_metadata: proposalId, state: { values: { review: { text: { type: 'plain_text_input', value: text } } } }, hash: 'h' },
  };
}

const proposal = async (id: string) => (await kit.call('GET', `/api/v1/proposals/${id}`)).body;
const updatesOf = (card: SlackCall) => kit.slack.callsOf('chat.update').filter((c) => c.args.ts === card.response!.ts && c.args.channel === 'CREVIEW');
const buttonsOf = (call: SlackCall) => (call.args.blocks as Array<{ type: string; elements?: Array<{ action_id?: string }> }>).find((b) => b.type === 'actions')?.elements?.map((e) => e.action_id) ?? [];
const contextText = (call: SlackCall) => (call.args.blocks as Array<{ type: string; elements?: Array<{ text: string }> }>).filter((b) => b.type === 'context').map((b) => b.elements![0]!.text).join(' | ');
const ephemerals = () => kit.slack.callsOf('chat.postEphemeral').map((c) => [c.args.user, c.args.text]);

describe('Slack review channel', () => {
  it('posts each pending proposal with question, consumer, reason, expert and answer, and four buttons', async () => {
    await start(REVIEW);
    const { card } = await answered('Thirty days & no fee <b>.');
    const text = JSON.stringify(card.args.blocks);
    expect(text).toContain('What is the grace period for disputed invoices?');
    expect(text).toContain('billing-bot');
    expect(text).toContain('the invoice total does not match the ledger');
    expect(text).toContain('Answer from Dana Smith');
    expect(text).toContain('Thirty days &amp; no fee &lt;b&gt;.');
    expect(buttonsOf(card)).toEqual(['expertq_review_accept', 'expertq_review_edit', 'expertq_review_reject', 'expertq_review_return']);
  });

  it('a card of an answer from the library says so, with its score, when it was verified and the question it first answered', async () => {
    await start(REVIEW);
    const curated = { topic: 'billing', question: 'What is the grace period for disputed invoices?', answer: 'Thirty days.', expert_id: 'UDANA' };
    expect((await kit.call('POST', '/api/v1/answers', curated)).status).toBe(201);
    const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ question: 'What grace period applies to disputed invoices?' }));
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('proposed');
    const card = kit.slack.posts('CREVIEW').find((c) => JSON.stringify(c.args.blocks).includes(request.proposal_id))!;
    expect(contextText(card)).toBe(
      ':books: Reused from the library (score 0.80, verified 2026-11-23): no expert was asked.\nFirst asked as: What is the grace period for disputed invoices?',
    );
  });

  it('a reviewer accepts with a click: decided as "<name> (slack:<id>)", the card loses its buttons and says who and when', async () => {
    await start(REVIEW);
    const { proposalId, card } = await answered();
    await kit.deliver(reviewClick('UREV', 'expertq_review_accept', proposalId));
    expect((await proposal(proposalId)).decision.decided_by).toBe('riley (slack:UREV)');
    const [update] = updatesOf(card);
    expect(buttonsOf(update!)).toEqual([]);
    expect(contextText(update!)).toMatch(/^Accepted by riley \(slack:UREV\) at 2026-11-23 10:00 UTC/);
  });

  it('refuses anyone not in chat.reviewers, and the expert who answered, with an ephemeral message; nothing changes', async () => {
    await start(REVIEW);
    const { proposalId } = await answered();
    await kit.deliver(reviewClick('UEVE', 'expertq_review_accept', proposalId));
    await kit.deliver(reviewClick('UDANA', 'expertq_review_accept', proposalId));
    expect((await proposal(proposalId)).status).toBe('pending');
    expect(ephemerals()).toEqual([
      ['UEVE', expect.stringMatching(/Only the reviewers listed in chat.reviewers can decide here/)],
      ['UDANA', expect.stringMatching(/You answered this one, so another reviewer must decide it/)],
    ]);
    // A form sent by someone not allowed is refused in the form itself.
    const ack = await kit.deliver(reviewForm('UEVE', 'expertq_review_reject_modal', proposalId, 'no'));
    expect(ack.body).toMatchObject({ response_action: 'errors', errors: { review: expect.stringMatching(/Only the reviewers/) } });
    expect((await proposal(proposalId)).status).toBe('pending');
  });

  it('Edit opens a form with the answer; sending it accepts the edited answer and keeps the expert’s', async () => {
    await start(REVIEW);
    const { proposalId } = await answered('30 days');
    await kit.deliver(reviewClick('UREV', 'expertq_review_edit', proposalId));
    const [open] = kit.slack.callsOf('views.open');
    expect(open!.args.view).toMatchObject({ callback_id: 'expertq_review_edit_modal', private_metadata: proposalId });
    expect(open!.args.view.blocks[0].element.initial_value).toBe('30 days');
    await kit.deliver(reviewForm('UREV', 'expertq_review_edit_modal', proposalId, 'Thirty days from the invoice date.'));
    expect(await proposal(proposalId)).toMatchObject({ status: 'accepted', answer: 'Thirty days from the invoice date.', original_answer: '30 days', provenance: { edited_by: 'riley (slack:UREV)' } });
  });

  it('Reject needs a reason; Send back asks Dana again in the same thread, and her next answer makes a new card', async () => {
    await start(REVIEW);
    const first = await answered('maybe');
    const empty = await kit.deliver(reviewForm('UREV', 'expertq_review_reject_modal', first.proposalId, '  '));
    expect(empty.body).toMatchObject({ response_action: 'errors' });
    expect((await proposal(first.proposalId)).status).toBe('pending');

    await kit.deliver(reviewForm('UREV', 'expertq_review_return_modal', first.proposalId, 'Please give the number of days.'));
    expect((await proposal(first.proposalId)).decision).toMatchObject({ reason: 'returned', note: 'Please give the number of days.' });
    expect(contextText(updatesOf(first.card)[0]!)).toMatch(/^Sent back to Dana Smith by riley \(slack:UREV\) at .*: Please give the number of days\./);
    const reAsk = kit.slack.posts('DUDANA').at(-1)!;
    expect(reAsk.args).toMatchObject({ thread_ts: first.askTs, reply_broadcast: 'true' });
    expect(JSON.stringify(reAsk.args.blocks)).toContain('A reviewer sent your answer back (\\"maybe\\") and asks: Please give the number of days.');

    await kit.deliver(dmMessage('UDANA', 'Thirty days.', { threadTs: first.askTs }));
    const request = (await kit.call('GET', `/api/v1/requests/${first.requestId}`)).body;
    expect(request.status).toBe('proposed');
    expect(request.proposal_id).not.toBe(first.proposalId);
    expect(kit.slack.posts('CREVIEW').filter((c) => JSON.stringify(c.args.blocks).includes(request.proposal_id))).toHaveLength(1);

    await kit.deliver(reviewForm('UREV', 'expertq_review_reject_modal', request.proposal_id, 'Outdated policy.'));
    expect((await proposal(request.proposal_id)).decision).toMatchObject({ reason: 'Outdated policy.', decided_by: 'riley (slack:UREV)' });
  });

  it('a decision taken elsewhere (API, CLI, web UI) updates the card too', async () => {
    await start(REVIEW);
    const { proposalId, card } = await answered();
    await kit.call('POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'web-reviewer', reason: 'Outdated.' });
    const [update] = updatesOf(card);
    expect(buttonsOf(update!)).toEqual([]);
    expect(contextText(update!)).toMatch(/^Rejected by web-reviewer at .*: Outdated\./);
  });

  it('a card older than its request’s give-up time says why it still waits', async () => {
    await start(REVIEW);
    const { card } = await answered('Thirty days.', { routing_policy: { give_up_after: 'PT2H' } });
    await kit.advance(2 * 3_600_000 + 1_000);
    const [update] = updatesOf(card);
    expect(contextText(update!)).toMatch(/Waiting for review past the request's give-up time \(2h after it was asked\)/);
    expect(buttonsOf(update!)).toHaveLength(4);
    await kit.advance(60_000);
    expect(updatesOf(card)).toHaveLength(1);
  });

  it('reminds the review channel once when the oldest proposal waits past review.remind_after, at most once a period', async () => {
    await start({ ...REVIEW, review: { remind_after: '1h' } });
    await answered();
    await answered('Thirty days again.', { question: 'And for credit notes?' });
    const reminders = () => kit.slack.posts('CREVIEW').filter((c) => !c.args.blocks);
    await kit.advance(59 * 60_000);
    expect(reminders()).toHaveLength(0);
    await kit.advance(2 * 60_000);
    expect(reminders()).toHaveLength(1);
    expect(reminders()[0]!.args.text).toMatch(/2 proposals wait for review; the oldest for 1h1m: "What is the grace period/);
    await kit.advance(30 * 60_000);
    expect(reminders()).toHaveLength(1);
    await kit.advance(31 * 60_000);
    expect(reminders()).toHaveLength(2);
  });
});

describe('reviewer reminders without Slack', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('logs one warning when the oldest proposal waits past review.remind_after, not one per proposal', async () => {
    t = await buildTestApp({ config: { review: { remind_after: '30m' } } });
    for (const question of ['One?', 'Two?', 'Three?']) {
      const id = (await t.call('POST', '/api/v1/requests', submitBody({ question, target_experts: ['sam'] }))).body.request_id;
      await t.call('POST', '/api/v1/replies', { expert_id: 'sam', text: 'Yes.', request_id: id });
    }
    t.clock.advance(31 * 60_000);
    expect((await t.service.tick()).reminded).toBe(true);
    t.clock.advance(60_000);
    expect((await t.service.tick()).reminded).toBe(false);
    const lines = t.logs.lines.filter((l) => String(l.msg).startsWith('review reminder'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(/3 proposals wait for review; the oldest for 31m/);
  });
});
