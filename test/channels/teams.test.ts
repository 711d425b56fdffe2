import { afterEach, describe, expect, it } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { REVIEW_CHANNEL, startTeamsKit, type TeamsKit } from '../support/teams-kit.js';
import { personalConversationId, type TeamsUser } from '../support/teams-activities.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let kit: TeamsKit | null = null;
let hook: WebhookReceiver | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
  await hook?.stop();
  hook = null;
});

/** The texts of a card's blocks, in order (RichTextBlocks' runs and TextBlocks). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cards are JSON
function blockTexts(card: any): string[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- cards are JSON
  return card.body.flatMap((b: any) => (b.type === 'RichTextBlock' ? b.inlines.map((i: any) => i.text) : b.type === 'TextBlock' ? [b.text] : []));
}

/** The Bot Connector posts to a person's personal conversation. */
function postsTo(k: TeamsKit, user: TeamsUser) {
  return k.fake.callsTo(personalConversationId(user)).filter((c) => c.method === 'POST');
}

/** The ask card last posted to `user`, with its activity id. */
function askOf(k: TeamsKit, user: TeamsUser) {
  const post = postsTo(k, user).findLast((c) => c.body.attachments?.[0]?.content?.actions);
  expect(post, 'an ask card was posted').toBeDefined();
  const card = post!.body.attachments[0].content;
  return { card, activityId: post!.created!, data: card.actions[0].data, text: post!.body.text as string };
}

async function installed(k: TeamsKit, user: TeamsUser): Promise<void> {
  expect((await k.post(k.fake.activities.installation(user))).status).toBe(200);
}

describe('Teams', () => {
  it('asks an installed expert with a card; the card answers, is replaced, and the reviewer accepts from the channel', async () => {
    kit = await startTeamsKit();
    const { dana, rev } = kit.people;
    hook = new WebhookReceiver();
    const url = await hook.start();
    expect((await kit.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'webhook', url } })).status).toBeLessThan(300);
    await installed(kit, dana);
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'], question: 'How long do refunds take? **now**' }));
    expect(submitted.status).toBeLessThan(300);

    const ask = askOf(kit, dana);
    expect(ask.card.version).toBe('1.5');
    const texts = blockTexts(ask.card);
    const order = ["I'm an automated assistant for Acme", 'is asking because', 'Question:', 'one- or two-sentence reply', 'recorded with your name', 'mute'];
    const at = order.map((part) => texts.findIndex((t) => t.includes(part)));
    expect(at.every((i) => i >= 0), texts.join('\n')).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // The same six elements are the activity's text, and the consumer's text is shown as written.
    expect(ask.text).toBe(texts.join('\n\n'));
    expect(texts.some((t) => t.includes('How long do refunds take? **now**'))).toBe(true);
    expect(ask.card.actions.map((a: { title: string; type: string }) => `${a.type}:${a.title}`)).toEqual(['Action.Execute:Answer', 'Action.Execute:Skip', 'Action.Execute:Mute']);
    const view = await kit.call('GET', `/api/v1/requests/${submitted.body.request_id}`);
    expect(view.body.asked).toContainEqual(expect.objectContaining({ expert_id: 'dana', channel: 'teams' }));

    // Dana answers in the card: the answer is taken, the card replaced by its status with no buttons.
    const pressed = await kit.post(kit.fake.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...ask.data, answer: 'Thirty days.' }, replyToId: ask.activityId }));
    expect(pressed.status).toBe(200);
    expect(pressed.body.value.actions).toBeUndefined();
    expect(blockTexts(pressed.body.value).at(-1)).toMatch(/sent for review/);
    const updates = kit.fake.callsTo(personalConversationId(dana)).filter((c) => c.method === 'PUT' && c.activityId === ask.activityId);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.at(-1)!.body.attachments[0].content.actions).toBeUndefined();

    // The review card in the Teams channel; Rev accepts there.
    const reviewPost = kit.fake.callsTo(REVIEW_CHANNEL.channelId).find((c) => c.method === 'POST' && c.body.attachments);
    expect(reviewPost).toBeDefined();
    const reviewCard = reviewPost!.body.attachments[0].content;
    expect(blockTexts(reviewCard)).toContain('Thirty days.');
    const accept = reviewCard.actions.find((a: { title: string }) => a.title === 'Accept');
    const decided = await kit.post(kit.fake.activities.cardAction(rev, { verb: accept.verb, data: accept.data, replyToId: reviewPost!.created!, channel: REVIEW_CHANNEL }));
    expect(decided.status).toBe(200);
    expect(blockTexts(decided.body.value).join('\n')).toMatch(new RegExp(`Accepted by Rev Iewer \\(teams:${rev.aadObjectId}\\)`));
    await kit.settle();
    const accepted = hook.received.filter((r) => r.json.event === 'proposal_accepted');
    expect(accepted).toHaveLength(1);
    expect((accepted[0]!.json.proposal as { answer: string }).answer).toBe('Thirty days.');
    // Dana hears that her answer was accepted, in the same conversation.
    expect(postsTo(kit, dana).some((c) => /accepted/i.test(c.body.text ?? '') && !c.body.attachments)).toBe(true);
  });

  it('refuses a non-reviewer in the card and changes nothing; a decision elsewhere updates the channel card', async () => {
    kit = await startTeamsKit();
    const { dana, sam } = kit.people;
    await installed(kit, dana);
    await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    const ask = askOf(kit, dana);
    await kit.post(kit.fake.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...ask.data, answer: 'Thirty days.' }, replyToId: ask.activityId }));
    const reviewPost = kit.fake.callsTo(REVIEW_CHANNEL.channelId).find((c) => c.method === 'POST' && c.body.attachments)!;
    const accept = reviewPost.body.attachments[0].content.actions.find((a: { title: string }) => a.title === 'Accept');

    const refused = await kit.post(kit.fake.activities.cardAction(sam, { verb: accept.verb, data: accept.data, replyToId: reviewPost.created!, channel: REVIEW_CHANNEL }));
    expect(refused.status).toBe(200);
    expect(blockTexts(refused.body.value).at(-1)).toMatch(/Only the reviewers listed in teams\.reviewers can decide here; nothing changed/);
    expect(refused.body.value.actions.length).toBeGreaterThan(0);
    const [pending] = (await kit.call('GET', '/api/v1/proposals?status=pending')).body.items ?? (await kit.call('GET', '/api/v1/proposals?status=pending')).body;
    expect(pending).toBeDefined();

    // Accepted in the API: the card in the channel loses its buttons and says who decided.
    expect((await kit.call('POST', `/api/v1/proposals/${pending.id}/accept`, { decided_by: 'ops-lead' })).status).toBe(200);
    const update = kit.fake.callsTo(REVIEW_CHANNEL.channelId).findLast((c) => c.method === 'PUT');
    expect(update?.activityId).toBe(reviewPost.created);
    expect(update!.body.attachments[0].content.actions).toBeUndefined();
    expect(blockTexts(update!.body.attachments[0].content).join('\n')).toMatch(/Accepted by ops-lead/);
  });

  it('Edit and accept delivers the edited text; Reject needs its reason; Send back returns the question with instructions', async () => {
    kit = await startTeamsKit();
    const { dana, rev } = kit.people;
    await installed(kit, dana);
    const cardFor = async (question: string) => {
      await kit!.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'], question }));
      const ask = askOf(kit!, dana);
      await kit!.post(kit!.fake.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...ask.data, answer: 'Thirty days.' }, replyToId: ask.activityId }));
      const post = kit!.fake.callsTo(REVIEW_CHANNEL.channelId).findLast((c) => c.method === 'POST' && c.body.attachments)!;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- cards are JSON
      const form = (title: string) => post.body.attachments[0].content.actions.find((a: any) => a.title === title).card.actions[0];
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- cards are JSON
      const press = (action: any, inputs: Record<string, string>) => kit!.post(kit!.fake.activities.cardAction(rev, { verb: action.verb, data: { ...action.data, ...inputs }, replyToId: post.created!, channel: REVIEW_CHANNEL }));
      return { form, press, proposalId: post.body.attachments[0].content.actions[0].data.proposal_id as string };
    };

    const edited = await cardFor('How long do refunds take?');
    const editedAnswer = await edited.press(edited.form('Edit and accept'), { edited_answer: 'Thirty calendar days.' });
    expect(blockTexts(editedAnswer.body.value).join('\n')).toMatch(/Accepted by Rev Iewer/);
    expect((await kit.call('GET', `/api/v1/proposals/${edited.proposalId}`)).body).toMatchObject({ status: 'accepted', answer: 'Thirty calendar days.' });

    const rejected = await cardFor('How long do chargebacks take?');
    const reject = rejected.form('Reject');
    expect(blockTexts((await rejected.press(reject, {})).body.value).at(-1)).toMatch(/nothing changed/i);
    expect((await kit.call('GET', `/api/v1/proposals/${rejected.proposalId}`)).body.status).toBe('pending');
    expect(blockTexts((await rejected.press(reject, { reason: 'Out of date since the new policy.' })).body.value).join('\n')).toMatch(/Rejected by Rev Iewer.*Out of date/s);

    const returned = await cardFor('How long do store credits take?');
    const back = await returned.press(returned.form('Send back'), { instructions: 'Say business days or calendar days.' });
    expect(blockTexts(back.body.value).join('\n')).toMatch(/Sent back to Dana Smith by Rev Iewer/);
    // Dana gets the question again, with the instructions, as a new card.
    expect(blockTexts(askOf(kit, dana).card).join('\n')).toMatch(/Say business days or calendar days/);
  });

  it('under a two-approval rule the first vote updates the channel card to "1 of 2" and the voter reads it; the second decides once', async () => {
    kit = await startTeamsKit({ review: (p) => ({ rules: [{ name: 'billing-two', match: { topics: ['billing'] }, reviewers: [`teams:${p.rev.aadObjectId}`, `teams:${p.sam.aadObjectId}`], approvals: 2 }] }) });
    const { dana, rev, sam } = kit.people;
    await installed(kit, dana);
    const { body } = await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    const ask = askOf(kit, dana);
    await kit.post(kit.fake.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...ask.data, answer: 'Thirty days.' }, replyToId: ask.activityId }));
    const reviewPost = kit.fake.callsTo(REVIEW_CHANNEL.channelId).find((c) => c.method === 'POST' && c.body.attachments)!;
    const accept = reviewPost.body.attachments[0].content.actions.find((a: { title: string }) => a.title === 'Accept');
    const press = (who: TeamsUser) => kit!.post(kit!.fake.activities.cardAction(who, { verb: accept.verb, data: accept.data, replyToId: reviewPost.created!, channel: REVIEW_CHANNEL }));

    const first = await press(rev);
    expect(blockTexts(first.body.value)).toContain('Approval recorded: 1 of 2, waiting for a second reviewer.');
    expect(first.body.value.actions.length).toBeGreaterThan(0);
    const update = kit.fake.callsTo(REVIEW_CHANNEL.channelId).findLast((c) => c.method === 'PUT');
    expect(update?.activityId).toBe(reviewPost.created);
    const updated = blockTexts(update!.body.attachments[0].content);
    expect(updated).toContain('1 of 2 approvals under the review rule "billing-two": Rev Iewer (teams:' + rev.aadObjectId + ') accepted.');
    expect(updated).toContain(`May still vote: teams:${sam.aadObjectId}.`);

    await press(sam);
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('accepted');
    const audit = (await kit.call('GET', `/api/v1/audit?request_id=${body.request_id}`)).body as Array<{ type: string }>;
    expect(audit.filter((e) => e.type === 'decided')).toHaveLength(1);
    // The review channel is their notice: neither reviewer is written to directly.
    expect([...postsTo(kit, rev), ...postsTo(kit, sam)]).toEqual([]);
  });
});
