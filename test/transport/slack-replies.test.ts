import { afterEach, describe, expect, it } from 'vitest';
import { buttonClick, dmMessage, modalSubmission, type SlackCall } from '../support/fake-slack.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit;
afterEach(async () => kit?.close());

/** Submits a request and returns its id, its first ask's id and the ts of the DM that carried it. */
async function ask(overrides: Record<string, unknown> = {}, expert = 'UDANA'): Promise<{ requestId: string; askId: string; ts: string }> {
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit(overrides));
  const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
  const askId = (request.asks as Array<{ id: string; expert_id: string }>).find((a) => a.expert_id === expert)!.id;
  const post = kit.slack.posts(`D${expert}`).find((c) => c.args.blocks?.at(-1)?.elements?.[0]?.value === askId)!;
  return { requestId: body.request_id, askId, ts: post.response!.ts };
}

const request = async (id: string) => (await kit.call('GET', `/api/v1/requests/${id}`)).body;
const audit = async (id: string) => ((await kit.call('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; data: Record<string, unknown> }>);
const updatesOf = (ts: string): SlackCall[] => kit.slack.callsOf('chat.update').filter((c) => c.args.ts === ts);
const threadReplies = (ts: string): string[] => kit.slack.posts().filter((c) => c.args.thread_ts === ts).map((c) => c.args.text as string);
const hasButtons = (call: SlackCall) => (call.args.blocks as Array<{ type: string }>).some((b) => b.type === 'actions');
const statusOf = (call: SlackCall) => (call.args.blocks as Array<{ type: string; elements?: Array<{ text: string }> }>).find((b) => b.type === 'context')!.elements![0]!.text;

describe('Slack replies (Socket Mode)', () => {
  it('takes a thread reply as the answer, thanks the expert in the thread and updates the ask', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, ts } = await ask();
    const ack = await kit.deliver(dmMessage('UDANA', 'Thirty days &amp; no fee, see <https://acme.example/policy|the policy>', { threadTs: ts }));
    expect(ack.status).toBe(200);
    const r = await request(requestId);
    expect(r.status).toBe('proposed');
    const proposal = (await kit.call('GET', `/api/v1/proposals/${r.proposal_id}`)).body;
    // Slack's escaping and link markup are undone: the answer is what the expert typed.
    expect(proposal.answer).toBe('Thirty days & no fee, see https://acme.example/policy');
    expect(proposal.provenance).toMatchObject({ expert_id: 'UDANA', transport: 'chat' });
    expect(threadReplies(ts)).toEqual([expect.stringMatching(/recorded and waiting for human review/)]);
    const [update] = updatesOf(ts);
    expect(hasButtons(update!)).toBe(false);
    expect(statusOf(update!)).toMatch(/^Answered/);
  });

  it('takes a top-level DM as the answer when exactly one ask is open', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId } = await ask();
    await kit.deliver(dmMessage('UDANA', 'Thirty days.'));
    expect((await request(requestId)).status).toBe('proposed');
  });

  it('does not guess with two open asks: it asks for a thread reply, and mute applies to both', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const first = await ask({ target_experts: ['UDANA'] });
    const second = await ask({ target_experts: ['UDANA'], question: 'And for credit notes?' });
    await kit.deliver(dmMessage('UDANA', 'Thirty days.'));
    expect((await request(first.requestId)).status).toBe('asked');
    expect((await request(second.requestId)).status).toBe('asked');
    const topLevel = kit.slack.posts('DUDANA').filter((c) => c.args.thread_ts === undefined && !c.args.blocks);
    expect(topLevel.at(-1)!.args.text).toMatch(/You have 2 open questions.*reply in the thread/);

    await kit.deliver(dmMessage('UDANA', 'skip'));
    expect((await request(first.requestId)).status).toBe('asked');

    await kit.deliver(dmMessage('UDANA', 'mute'));
    const experts = (await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean; open_asks: number }>;
    expect(experts.find((e) => e.id === 'UDANA')).toMatchObject({ muted: true, open_asks: 0 });
    for (const r of [first, second]) {
      expect((await request(r.requestId)).status).toBe('escalated');
      expect(statusOf(updatesOf(r.ts)[0]!)).toMatch(/^Muted/);
    }
    expect(kit.slack.posts('DULEE').filter(hasAskButtons)).toHaveLength(2);
  });

  it('answers a top-level message with no open ask, and still takes mute and unmute there', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    await kit.deliver(dmMessage('UDANA', 'What is this bot?'));
    expect(kit.slack.posts('DUDANA').at(-1)!.args.text).toMatch(/no open question for you right now/);
    await kit.deliver(dmMessage('UDANA', 'mute'));
    let dana = ((await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>).find((e) => e.id === 'UDANA')!;
    expect(dana.muted).toBe(true);
    await kit.deliver(dmMessage('UDANA', 'unmute'));
    dana = ((await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>).find((e) => e.id === 'UDANA')!;
    expect(dana.muted).toBe(false);
    expect(kit.slack.posts('DUDANA').at(-1)!.args.text).toMatch(/Welcome back/);
  });

  it('opens the Answer modal on the button, and its submission is the answer', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, askId, ts } = await ask();
    await kit.deliver(buttonClick('UDANA', 'expertq_answer', askId, 'trigger-answer'));
    const [open] = kit.slack.callsOf('views.open');
    expect(open!.args).toMatchObject({ trigger_id: 'trigger-answer', view: { callback_id: 'expertq_answer_modal', private_metadata: askId } });
    expect(open!.args.view.blocks.find((b: { type: string }) => b.type === 'input').element).toMatchObject({ type: 'plain_text_input', multiline: true });

    await kit.deliver(modalSubmission('UDANA', askId, 'Thirty days from the invoice date.'));
    const r = await request(requestId);
    expect(r.status).toBe('proposed');
    expect((await kit.call('GET', `/api/v1/proposals/${r.proposal_id}`)).body.answer).toBe('Thirty days from the invoice date.');
    expect(hasButtons(updatesOf(ts)[0]!)).toBe(false);
  });

  it('refuses an empty modal answer with a field error and records nothing', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, askId } = await ask();
    const ack = await kit.deliver(modalSubmission('UDANA', askId, '   '));
    expect(ack.body).toMatchObject({ response_action: 'errors', errors: { answer: expect.any(String) } });
    expect((await request(requestId)).status).toBe('asked');
  });

  it('Skip passes the ask on and Mute mutes, each updating the ask message', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const skipped = await ask();
    await kit.deliver(buttonClick('UDANA', 'expertq_skip', skipped.askId));
    expect((await request(skipped.requestId)).status).toBe('escalated');
    expect(statusOf(updatesOf(skipped.ts)[0]!)).toBe('Skipped: passed on to Lee Chen.');
    expect(threadReplies(skipped.ts)).toEqual(['OK, skipped: passed on to Lee Chen.']);

    const muted = await ask({ target_experts: ['USAM'], topic: 'deployments' }, 'USAM');
    await kit.deliver(buttonClick('USAM', 'expertq_mute', muted.askId));
    const sam = ((await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>).find((e) => e.id === 'USAM')!;
    expect(sam.muted).toBe(true);
    expect(statusOf(updatesOf(muted.ts)[0]!)).toMatch(/^Muted/);
    expect((await request(muted.requestId)).reason.code).toBe('expert_declined');
  });

  it('a click or a modal from anyone but the asked expert changes nothing', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, askId, ts } = await ask();
    await kit.deliver(buttonClick('UEVE', 'expertq_skip', askId));
    await kit.deliver(buttonClick('ULEE', 'expertq_mute', askId));
    await kit.deliver(modalSubmission('ULEE', askId, 'I am not Dana but here you go.'));
    expect((await request(requestId)).status).toBe('asked');
    const experts = (await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>;
    expect(experts.every((e) => !e.muted)).toBe(true);
    expect(updatesOf(ts)).toHaveLength(0);
    expect((await audit(requestId)).map((e) => e.type)).not.toContain('replied');
  });

  it('processes an event retried three times (same event id) once', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, ts } = await ask();
    const event = dmMessage('UDANA', 'Thirty days.', { threadTs: ts, eventId: 'EvRETRIED' });
    for (let attempt = 0; attempt <= 3; attempt++) {
      expect((await kit.deliver(event, { retryAttempt: attempt })).status).toBe(200);
    }
    const trail = await audit(requestId);
    expect(trail.filter((e) => e.type === 'replied')).toHaveLength(1);
    expect(trail.filter((e) => e.type === 'proposed')).toHaveLength(1);
    expect((await kit.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);
    expect(threadReplies(ts)).toHaveLength(1);
  });

  it('ignores edits, deletions, bots and the bot itself', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const { requestId, ts } = await ask();
    await kit.deliver(dmMessage('UDANA', 'edited answer', { threadTs: ts, subtype: 'message_changed' }));
    await kit.deliver(dmMessage('UDANA', 'deleted', { threadTs: ts, subtype: 'message_deleted' }));
    await kit.deliver(dmMessage('UOTHERBOT', 'I am a bot', { threadTs: ts, botId: 'B999' }));
    await kit.deliver(dmMessage('UBOT', 'the bot talking to itself', { threadTs: ts }));
    expect((await request(requestId)).status).toBe('asked');
    expect(threadReplies(ts)).toHaveLength(0);
  });

  it('updates the ask when it escalates away, times out or is cancelled, and tells the expert of an acceptance in the thread', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const escalating = await ask({ routing_policy: { escalation_after: 'PT1H', give_up_after: 'PT3H' } });
    await kit.advance(3_600_000 + 1_000);
    expect(statusOf(updatesOf(escalating.ts)[0]!)).toMatch(/No reply within 1h, so this was passed on to Lee Chen/);
    const leeAsk = kit.slack.posts('DULEE').find(hasAskButtons)!;
    await kit.advance(2 * 3_600_000);
    expect((await request(escalating.requestId)).reason.code).toBe('timeout');
    expect(statusOf(updatesOf(leeAsk.response!.ts)[0]!)).toMatch(/nobody answered in time/);

    const cancelled = await ask({ target_experts: ['UDANA'] });
    await kit.call('POST', `/api/v1/requests/${cancelled.requestId}/cancel`);
    expect(statusOf(updatesOf(cancelled.ts)[0]!)).toMatch(/cancelled/);

    const accepted = await ask({ target_experts: ['UDANA'] });
    await kit.deliver(dmMessage('UDANA', 'Thirty days.', { threadTs: accepted.ts }));
    const proposalId = (await request(accepted.requestId)).proposal_id;
    await kit.call('POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'rev' });
    expect(threadReplies(accepted.ts).at(-1)).toMatch(/was accepted after human review and is recorded with your name \(Dana Smith\)/);
    // Every update took the buttons away.
    expect(kit.slack.callsOf('chat.update').every((c) => !hasButtons(c))).toBe(true);
  });

  it('escapes consumer text for mrkdwn so a consumer cannot ping a channel or disguise a link', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    await ask({ question: 'Is <!channel> & <https://evil.example|docs> fine?', context: { asked_because: '<@U123> said so' }, consumer_id: 'bot<b>' });
    const post = kit.slack.posts('DUDANA')[0]!;
    for (const text of [post.args.text as string, ...post.args.blocks.filter((b: { type: string }) => b.type === 'section').map((b: { text: { text: string } }) => b.text.text)]) {
      expect(text).not.toMatch(/<[!@h]/);
    }
    expect(post.args.text).toContain('Is &lt;!channel&gt; &amp; &lt;https://evil.example|docs&gt; fine?');
    expect(post.args.text).toContain('&lt;@U123&gt; said so');
  });
});

function hasAskButtons(call: SlackCall): boolean {
  return Array.isArray(call.args.blocks) && call.args.blocks.some((b: { type: string }) => b.type === 'actions');
}
