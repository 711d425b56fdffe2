import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { dmMessage, type FakeSlack } from '../support/fake-slack.js';
import { SLACK_EXPERTS, startSlackKit } from '../support/slack-kit.js';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { startEmailKit } from '../support/email-kit.js';
import { composeMail } from '../support/inbound-mail.js';
import type { Harness } from '../support/channel-harness.js';
import { teamsHarness } from '../support/teams-harness.js';

/**
 * One suite, every channel: where the console, Slack, email and Teams behave the same (the six elements
 * on every ask path, replies, opt-outs, the acceptance notice), each must pass it. Each harness asks and
 * replies the way its channel does: the console prints and takes `POST /replies`; Slack posts a DM and
 * takes a reply in the ask's thread over Socket Mode; email mails the ask and takes the expert's reply
 * (the ask quoted below) through the inbound route; Teams posts a card in the expert's personal chat
 * and takes a press of its buttons or a message typed in that chat (test/support/teams-harness.ts).
 */

async function consoleHarness(config: Record<string, unknown> = {}): Promise<Harness> {
  const t = await buildTestApp({ config });
  const blocks = () => t.messages().map((m) => m.split('\n'));
  const to = (id: string) => blocks().filter((lines) => lines[0]!.includes(`(${id})`));
  return {
    ids: { dana: 'dana', lee: 'lee', sam: 'sam' },
    call: (method, path, body) => t.call(method, path, body),
    asksTo: (id) => to(id).filter((l) => l.some((x) => x.includes('reply with: expertq reply'))).map((l) => l.slice(1, l.findIndex((x) => x.includes('reply with:'))).map((x) => x.trim())),
    noticesTo: (id) => to(id).filter((l) => !l.some((x) => x.includes('reply with:'))).map((l) => l.slice(1).map((x) => x.trim()).join('\n')),
    async reply(expertId, text, requestId) {
      const res = await t.call('POST', '/api/v1/replies', { expert_id: expertId, text, request_id: requestId });
      expect(res.status).toBe(200);
    },
    async advance(ms) {
      t.clock.advance(ms);
      await t.service.tick();
      await t.service.idle();
    },
    close: () => t.close(),
  };
}

async function slackHarness(config: Record<string, unknown> = {}): Promise<Harness> {
  const kit = await startSlackKit({ mode: 'socket', config });
  const slack: FakeSlack = kit.slack;
  const askPosts = (id: string) => slack.posts(`D${id}`).filter((c) => Array.isArray(c.args.blocks) && c.args.blocks.some((b: { type: string }) => b.type === 'actions'));
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return {
    ids: { dana: 'UDANA', lee: 'ULEE', sam: 'USAM' },
    call: (method, path, body) => kit.call(method, path, body),
    asksTo: (id) =>
      askPosts(id).map((c) => {
        const sections = (c.args.blocks as Array<{ type: string; text?: { text: string } }>).filter((b) => b.type === 'section');
        // The notification text carries the same six elements, in the same order.
        expect(unescape(c.args.text as string)).toBe(sections.map((b) => unescape(b.text!.text)).join('\n'));
        return sections.map((b) => unescape(b.text!.text));
      }),
    noticesTo: (id) => slack.posts(`D${id}`).filter((c) => !Array.isArray(c.args.blocks)).map((c) => unescape(c.args.text as string)),
    async reply(expertId, text, requestId) {
      const request = await kit.call('GET', `/api/v1/requests/${requestId}`);
      const ask = (request.body.asks as Array<{ id: string; expert_id: string }>).findLast((a) => a.expert_id === expertId)!;
      const post = askPosts(expertId).find((c) => c.args.blocks.at(-1).elements[0].value === ask.id);
      expect(post).toBeDefined();
      await kit.deliver(dmMessage(expertId, text, { threadTs: post!.response!.ts }));
    },
    advance: (ms) => kit.advance(ms),
    close: () => kit.close(),
  };
}

async function emailHarness(config: Record<string, unknown> = {}): Promise<Harness> {
  const kit = await startEmailKit({ config, experts: EXAMPLE_EXPERTS.map((e) => ({ ...e, email: `${e.id}@acme.example` })) });
  const mails: ParsedMail[] = [];
  // Mail is parsed as it arrives, once each, so every look sees all of it.
  const sync = async () => {
    for (const m of kit.smtp.messages.slice(mails.length)) mails.push(await simpleParser(m.raw));
  };
  const to = (id: string) => mails.filter((m) => (m.to as AddressObject).value[0]!.address === `${id}@acme.example`);
  const isAsk = (m: ParsedMail) => m.subject?.startsWith('Question from Acme: ') ?? false;
  const settle = async () => {
    await kit.settle();
    await sync();
  };
  return {
    ids: { dana: 'dana', lee: 'lee', sam: 'sam' },
    async call(method, path, body) {
      const res = await kit.call(method, path, body);
      await sync();
      return res;
    },
    // The text part holds the elements in order, a blank line between them.
    asksTo: (id) => to(id).filter(isAsk).map((m) => m.text!.trim().split(/\n\n/)),
    noticesTo: (id) => to(id).filter((m) => !isAsk(m)).map((m) => m.text!.trim()),
    async reply(expertId, text, requestId) {
      const request = await kit.call('GET', `/api/v1/requests/${requestId}`);
      const ask = (request.body.asks as Array<{ id: string; expert_id: string }>).findLast((a) => a.expert_id === expertId)!;
      const mail = to(expertId).find((m) => isAsk(m) && m.messageId?.includes(ask.id));
      expect(mail).toBeDefined();
      const raw = await composeMail({
        from: `${expertId}@acme.example`,
        to: (mail!.replyTo as AddressObject).value[0]!.address!,
        subject: `Re: ${mail!.subject}`,
        inReplyTo: mail!.messageId,
        references: [mail!.messageId!],
        messageId: `<reply-${Math.random().toString(36).slice(2)}@acme.example>`,
        text: `${text}\n\nOn Mon, 23 Nov 2026 at 10:00, Acme expertq <expertq@acme.example> wrote:\n> ${mail!.subject}\n`,
      });
      expect((await kit.inbound(raw)).status).toBe(200);
      await settle();
    },
    async advance(ms) {
      kit.clock.advance(ms);
      await kit.server.service.tick();
      await settle();
    },
    close: () => kit.close(),
  };
}

function expectSixElements(ask: string[] | undefined, expert: { name: string }, parts: { consumer: string; because: string; question: string }): void {
  expect(ask).toHaveLength(6);
  const [who, why, question, effort, attribution, optOut] = ask!;
  expect(who).toMatch(new RegExp(`^Hi ${expert.name.split(' ')[0]}, I'm an automated assistant for Acme \\(not a person\\)`));
  expect(why).toContain(parts.consumer);
  expect(why).toContain(parts.because);
  expect(question).toBe(`Question: ${parts.question}`);
  expect(effort).toMatch(/one- or two-sentence reply/);
  expect(attribution).toContain(`(${expert.name}) as the source, after human review`);
  expect(optOut).toMatch(/`mute`.*`skip`/);
}

/** An ask showing a stale library entry: the six elements in order, and that entry's line right after the question. */
function expectSixElementsAndPrevious(ask: string[] | undefined, expert: { name: string }, askParts: typeof parts, previous: string): void {
  expect(ask).toHaveLength(7);
  expect(ask![3]).toBe(previous);
  expectSixElements(ask!.filter((_, i) => i !== 3), expert, askParts);
}

const submit = submitBody;
const parts = { consumer: 'billing-bot', because: 'the invoice total does not match the ledger', question: 'What is the grace period for disputed invoices?' };
const [DANA, LEE, SAM] = [EXAMPLE_EXPERTS[0]!, EXAMPLE_EXPERTS[1]!, SLACK_EXPERTS[2]!];

/**
 * Teams takes a reply two ways, a press on the ask's card or a message typed in the chat: the typed
 * run is the same harness with only `reply` different, so it runs the behaviours that reply (the
 * others would repeat the card run exactly).
 */
describe.each([
  ['console', consoleHarness, 'all'],
  ['slack', slackHarness, 'all'],
  ['email', emailHarness, 'all'],
  ['teams', teamsHarness, 'all'],
  ['teams (typed replies)', (config?: Record<string, unknown>) => teamsHarness(config, 'chat'), 'replies'],
] as const)('the %s transport', (_name, make, behaviours) => {
  let h: Harness;
  afterEach(async () => h?.close());
  /** A behaviour in which no expert replies: not repeated by a run that differs from another only in how replies are taken. */
  const withoutReplies = behaviours === 'all' ? it : () => undefined;

  it('sends the first ask with the six elements in order, and an answer becomes a proposal', async () => {
    h = await make();
    const { body } = await h.call('POST', '/api/v1/requests', submit());
    expectSixElements(h.asksTo(h.ids.dana)[0], DANA, parts);
    await h.reply(h.ids.dana, 'Thirty days from the invoice date.', body.request_id);
    const request = (await h.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('proposed');
    const proposal = (await h.call('GET', `/api/v1/proposals/${request.proposal_id}`)).body;
    expect(proposal.answer).toBe('Thirty days from the invoice date.');
  });

  withoutReplies('asks every target expert directly, each with the six elements', async () => {
    h = await make();
    await h.call('POST', '/api/v1/requests', submit({ target_experts: [h.ids.lee, h.ids.sam] }));
    expectSixElements(h.asksTo(h.ids.lee)[0], LEE, parts);
    expectSixElements(h.asksTo(h.ids.sam)[0], SAM, parts);
    expect(h.asksTo(h.ids.dana)).toHaveLength(0);
  });

  withoutReplies('escalates after escalation_after with the six elements', async () => {
    h = await make();
    await h.call('POST', '/api/v1/requests', submit({ routing_policy: { escalation_after: 'PT1H' } }));
    expect(h.asksTo(h.ids.lee)).toHaveLength(0);
    await h.advance(3_600_000 + 1_000);
    expectSixElements(h.asksTo(h.ids.lee)[0], LEE, parts);
  });

  withoutReplies('holds an ask through quiet hours and sends it, whole, when they end', async () => {
    h = await make();
    // The fake clock stands at 10:00 UTC: inside a 09:00–11:00 window.
    await h.call('POST', '/api/v1/requests', submit({ routing_policy: { quiet_hours: ['09:00', '11:00'] } }));
    expect(h.asksTo(h.ids.dana)).toHaveLength(0);
    await h.advance(3_600_000 + 1_000);
    expectSixElements(h.asksTo(h.ids.dana)[0], DANA, parts);
  });

  it('sends a held request, whole, once its expert frees up', async () => {
    h = await make({ defaults: { max_open_asks_per_expert: 1 } });
    const first = (await h.call('POST', '/api/v1/requests', submit({ target_experts: [h.ids.sam] }))).body;
    const second = (await h.call('POST', '/api/v1/requests', submit({ target_experts: [h.ids.sam], question: 'And for credit notes?' }))).body;
    expect(h.asksTo(h.ids.sam)).toHaveLength(1);
    await h.reply(h.ids.sam, 'Thirty days.', first.request_id);
    expectSixElements(h.asksTo(h.ids.sam)[1], SAM, { ...parts, question: 'And for credit notes?' });
    expect((await h.call('GET', `/api/v1/requests/${second.request_id}`)).body.status).toBe('asked');
  });

  it('passes a skipped ask on with the six elements, and mute does the same and mutes', async () => {
    h = await make();
    const { body } = await h.call('POST', '/api/v1/requests', submit());
    await h.reply(h.ids.dana, 'skip', body.request_id);
    expectSixElements(h.asksTo(h.ids.lee)[0], LEE, parts);

    const other = (await h.call('POST', '/api/v1/requests', submit({ target_experts: [h.ids.sam], topic: 'deployments' }))).body;
    await h.reply(h.ids.sam, 'mute', other.request_id);
    const experts = (await h.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>;
    expect(experts.find((e) => e.id === h.ids.sam)!.muted).toBe(true);
    expect((await h.call('GET', `/api/v1/requests/${other.request_id}`)).body.reason.code).toBe('expert_declined');
  });

  it('shows the previous answer of a stale library entry right after the question, six elements intact; `same` proposes that answer', async () => {
    h = await make();
    const first = (await h.call('POST', '/api/v1/requests', submit())).body;
    await h.reply(h.ids.dana, 'Thirty days from the invoice date.', first.request_id);
    const proposed = (await h.call('GET', `/api/v1/requests/${first.request_id}`)).body;
    await h.call('POST', `/api/v1/proposals/${proposed.proposal_id}/accept`, { decided_by: 'rev' });
    await h.advance(91 * 86_400_000);

    const question = 'What grace period applies to disputed invoices?';
    const again = (await h.call('POST', '/api/v1/requests', submit({ question }))).body;
    const previous = 'Last time (Nov 23, 2026) Dana Smith answered: “Thirty days from the invoice date.”. If it still holds, reply `same`.';
    expectSixElementsAndPrevious(h.asksTo(h.ids.dana)[1], DANA, { ...parts, question }, previous);
    await h.reply(h.ids.dana, 'Same.', again.request_id);
    const request = (await h.call('GET', `/api/v1/requests/${again.request_id}`)).body;
    const proposal = (await h.call('GET', `/api/v1/proposals/${request.proposal_id}`)).body;
    expect(proposal).toMatchObject({ answer: 'Thirty days from the invoice date.', provenance: { refreshes: expect.stringMatching(/^ans_/) } });
  });

  it('tells the expert, by name, when a reviewer accepts their answer', async () => {
    h = await make();
    const { body } = await h.call('POST', '/api/v1/requests', submit());
    await h.reply(h.ids.dana, 'Thirty days.', body.request_id);
    const request = (await h.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    await h.call('POST', `/api/v1/proposals/${request.proposal_id}/accept`, { decided_by: 'rev' });
    const accepted = h.noticesTo(h.ids.dana).filter((n) => /was accepted after human review/.test(n));
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toContain('(Dana Smith) as the source');
  });
});
