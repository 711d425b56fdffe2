import { afterEach, describe, expect, it } from 'vitest';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit;
afterEach(async () => kit?.close());

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
const seconds = (ms: number) => Math.floor(ms / 1000);

/** Ana and Ben both take billing; Cy takes payroll only. Nobody escalates unless a test says so. */
const ANA = { id: 'UANA', name: 'Ana Garcia', topics: ['billing'] };
const BEN = { id: 'UBEN', name: 'Ben Berg', topics: ['billing'] };
const CY = { id: 'UCY', name: 'Cy Park', topics: ['payroll'] };
const statusOn = (experts: unknown[]) => ({ chat: { use_slack_status: true }, experts });

const askPosts = (user: string) => kit.slack.posts(`D${user}`).filter((c) => Array.isArray(c.args.blocks));
const request = async (id: string) => (await kit.call('GET', `/api/v1/requests/${id}`)).body;
const asks = async (id: string) => ((await request(id)).asks as Array<{ expert_id: string; state: string }>).map((a) => [a.expert_id, a.state]);
const trail = async (id: string) => (await kit.call('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;

async function ask(question: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await kit.call('POST', '/api/v1/requests', slackSubmit({ topic: 'billing', question, ...extra }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.request_id as string;
}

describe('a Slack away status passes the question on (chat.use_slack_status)', () => {
  for (const [label, span] of [['an hour', HOUR], ['a week', WEEK]] as const) {
    it(`a palm tree expiring in ${label}: the colleague on the topic is asked at once, and routing skips her until it expires`, async () => {
      kit = await startSlackKit({ mode: 'socket', config: statusOn([ANA, BEN]) });
      const back = kit.clock.now() + span;
      kit.slack.statuses.set('UANA', { status_emoji: ':palm_tree:', status_text: 'Beach', status_expiration: seconds(back) });

      const first = await ask('How are refunds booked?');
      expect(askPosts('UANA')).toHaveLength(0);
      expect(askPosts('UBEN')).toHaveLength(1);
      expect(await asks(first)).toEqual([['UANA', 'skipped'], ['UBEN', 'open']]);
      expect((await request(first)).waiting).toBeNull();
      const passed = (await trail(first)).filter((a) => a.type === 'passed_on');
      expect(passed).toHaveLength(1);
      expect(passed[0]!.data).toMatchObject({ why: 'away', source: 'slack_status', until: new Date(seconds(back) * 1000).toISOString(), to: 'UBEN' });
      expect((await trail(first)).some((a) => a.type === 'waiting_for_expert')).toBe(false);
      const experts = (await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string }>;
      expect(experts.find((e) => e.id === 'UANA')).toMatchObject({ away: null, available_now: false, unavailable: { why: 'away', until: new Date(seconds(back) * 1000).toISOString() } });

      // Long after her status was last read (it is read at most every 5 minutes), she is still passed over.
      await kit.advance(Math.min(30 * 60_000, span / 2));
      const second = await ask('And credit notes?');
      expect(await asks(second)).toEqual([['UBEN', 'open']]);
      expect(askPosts('UANA')).toHaveLength(0);

      // Once the status has expired she is asked again (Ben has two open questions, she has none).
      await kit.advance(span);
      const third = await ask('And chargebacks?');
      expect(await asks(third)).toEqual([['UANA', 'open']]);
      expect(askPosts('UANA')).toHaveLength(1);
    });
  }

  it('an away status text (OOO) passes the question on too, along the escalation chain before other candidates', async () => {
    kit = await startSlackKit({ mode: 'socket', config: statusOn([{ ...ANA, escalation_to: 'UCY' }, BEN, CY]) });
    kit.slack.statuses.set('UANA', { status_emoji: ':sunny:', status_text: 'OOO until Monday', status_expiration: seconds(kit.clock.now() + 48 * HOUR) });
    const id = await ask('How are refunds booked?');
    expect(await asks(id)).toEqual([['UANA', 'skipped'], ['UCY', 'open']]);
    expect(askPosts('UCY')).toHaveLength(1);
    expect((await trail(id)).find((a) => a.type === 'passed_on')!.data).toMatchObject({ why: 'away', source: 'slack_status', to: 'UCY' });
  });

  it('with nobody else to take it, the question waits for her status to expire, then reaches her', async () => {
    kit = await startSlackKit({ mode: 'socket', config: statusOn([ANA, CY]) });
    const back = kit.clock.now() + 3 * HOUR;
    kit.slack.statuses.set('UANA', { status_emoji: ':palm_tree:', status_expiration: seconds(back) });
    const id = await ask('How are refunds booked?');
    expect(askPosts('UANA')).toHaveLength(0);
    expect(await asks(id)).toEqual([['UANA', 'queued']]);
    expect((await request(id)).waiting).toEqual({ why: 'away', expert_id: 'UANA', until: new Date(back).toISOString(), timezone: 'UTC' });
    expect((await trail(id)).find((a) => a.type === 'waiting_for_expert')?.data).toMatchObject({ why: 'away', until: new Date(back).toISOString() });
    expect((await trail(id)).some((a) => a.type === 'passed_on')).toBe(false);

    // A later question finds her away too, and waits as well instead of failing.
    await kit.advance(HOUR);
    const later = await ask('And credit notes?');
    expect((await request(later)).waiting).toMatchObject({ why: 'away', expert_id: 'UANA' });

    await kit.advance(2 * HOUR);
    expect(askPosts('UANA')).toHaveLength(2);
    expect((await request(id)).status).toBe('asked');
  });

  it('do-not-disturb stays a wait: the colleague is not asked', async () => {
    kit = await startSlackKit({ mode: 'socket', config: statusOn([ANA, BEN]) });
    const now = kit.clock.now();
    kit.slack.dnd.set('UANA', { dnd_enabled: true, next_dnd_start_ts: seconds(now - HOUR), next_dnd_end_ts: seconds(now + HOUR) });
    const id = await ask('How are refunds booked?');
    expect(await asks(id)).toEqual([['UANA', 'queued']]);
    expect((await request(id)).waiting).toMatchObject({ why: 'dnd', expert_id: 'UANA' });
    expect(askPosts('UBEN')).toHaveLength(0);
  });
});
