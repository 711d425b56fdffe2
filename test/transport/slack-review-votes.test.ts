import { afterEach, describe, expect, it } from 'vitest';
import { dmMessage, type SlackCall } from '../support/fake-slack.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

/** The two-person rule for billing: Riley and Amy must both accept. */
const TWO_PERSON = { rules: [{ name: 'billing-two', match: { topics: ['billing'] }, reviewers: ['slack:UREV', 'slack:UAMY'], approvals: 2 }], remind_after: '1h' };

let kit: SlackKit;
afterEach(async () => kit?.close());

/** A request answered by Dana in her ask's thread: one pending proposal a rule governs. */
async function answered(config: Record<string, unknown>) {
  kit = await startSlackKit({ mode: 'socket', config });
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'] }));
  const askPost = kit.slack.posts('DUDANA').at(-1)!;
  await kit.deliver(dmMessage('UDANA', 'Thirty days.', { threadTs: askPost.response!.ts }));
  const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
  return { requestId: body.request_id as string, proposalId: request.proposal_id as string };
}

function click(user: string, proposalId: string) {
  return {
    type: 'block_actions',
    team: { id: 'T1', domain: 'acme' },
    user: { id: user, name: user.slice(1).toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `rt-${Math.random()}`,
    container: { type: 'message', channel_id: 'CREVIEW' },
    channel: { id: 'CREVIEW' },
    message: { type: 'message', ts: '1700000000.000009', blocks: [] },
    actions: [{ type: 'button', action_id: 'expertq_review_accept', block_id: 'expertq_review', value: proposalId, action_ts: '1700000300.000001' }],
  };
}

const contextText = (call: SlackCall) => (call.args.blocks as Array<{ type: string; elements?: Array<{ text: string }> }>).filter((b) => b.type === 'context').map((b) => b.elements![0]!.text).join(' | ');
const ephemerals = () => kit.slack.callsOf('chat.postEphemeral').map((c) => [c.args.user, c.args.text]);
const audit = async (requestId: string) => ((await kit.call('GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string }>).map((e) => e.type);
const dms = (user: string) => kit.slack.posts(`D${user}`).map((c) => String(c.args.text));

describe('Slack review under a two-approval rule', () => {
  it('the first vote updates the card to "1 of 2" and tells the voter; the second reviewer’s vote decides once', async () => {
    const { requestId, proposalId } = await answered({ chat: { review_channel: 'CREVIEW', reviewers: [] }, review: TWO_PERSON });
    const card = kit.slack.posts('CREVIEW').find((c) => JSON.stringify(c.args.blocks).includes(proposalId))!;
    expect(contextText(card)).toContain('0 of 2 approvals under the review rule "billing-two": no votes yet.\nMay still vote: slack:UREV, slack:UAMY.');

    await kit.deliver(click('UREV', proposalId));
    const updates = () => kit.slack.callsOf('chat.update').filter((c) => c.args.ts === card.response!.ts);
    expect(updates()).toHaveLength(1);
    expect(contextText(updates()[0]!)).toContain('1 of 2 approvals under the review rule "billing-two": rev (slack:UREV) accepted.\nMay still vote: slack:UAMY.');
    expect(ephemerals()).toEqual([['UREV', 'Approval recorded: 1 of 2, waiting for a second reviewer.']]);
    expect((await kit.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');

    await kit.deliver(click('UAMY', proposalId));
    expect((await kit.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('accepted');
    const decided = contextText(updates().at(-1)!);
    expect(decided).toMatch(/2 of 2 approvals under the review rule "billing-two": .*rev \(slack:UREV\) accepted/);
    expect(decided).toContain('Accepted by amy (slack:UAMY)');
    expect(decided).not.toContain('May still vote');
    expect((await audit(requestId)).filter((t) => t === 'decided')).toHaveLength(1);
    // With its reviewers in the review channel, the card is their notice: no direct messages.
    expect([...dms('UREV'), ...dms('UAMY')]).toEqual([]);
  });

  it('without a review channel each reviewer gets one direct message, and the reminder goes only to those who have not voted', async () => {
    const { proposalId } = await answered({ review: TWO_PERSON });
    expect(dms('UREV')).toEqual(['An answer waits for your vote under the review rule "billing-two" (2 approvals needed): "What is the grace period for disputed invoices?", answered by Dana Smith. Accept or reject it in the review queue.']);
    expect(dms('UAMY')).toHaveLength(1);
    // Dana answered: she is not told, and nobody else is.
    expect(kit.slack.posts().filter((c) => String(c.args.text).includes('waits for your vote'))).toHaveLength(2);

    // Riley votes (from a card press; the service takes it as from the review channel).
    await kit.deliver(click('UREV', proposalId));
    expect((await kit.call('GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
    await kit.advance(59 * 60_000);
    expect(dms('UAMY')).toHaveLength(1);
    await kit.advance(2 * 60_000);
    expect(dms('UREV')).toHaveLength(1);
    expect(dms('UAMY')).toHaveLength(2);
    expect(dms('UAMY')[1]).toMatch(/^Reminder: your vote is still missing on an answer waiting for .+ under the review rule "billing-two" \(1 of 2 approvals so far\): "What is the grace period/);
    // Once per period.
    await kit.advance(30 * 60_000);
    expect(dms('UAMY')).toHaveLength(2);
  });
});
