import { afterEach, describe, expect, it } from 'vitest';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit;
afterEach(async () => kit?.close());

const STATUS_ON = { chat: { use_slack_status: true } };
const HOUR = 3_600_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

const askPosts = () => kit.slack.posts('DUDANA').filter((c) => Array.isArray(c.args.blocks));
const lookups = () => ({ dnd: kit.slack.callsOf('dnd.info').length, profile: kit.slack.callsOf('users.profile.get').length });
const request = async (id: string) => (await kit.call('GET', `/api/v1/requests/${id}`)).body;

async function askDana(question?: string): Promise<string> {
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'], ...(question ? { question } : {}) }));
  return body.request_id as string;
}

// What an away status does to a question (it is passed on) is in slack-away-status.test.ts.
describe('Slack status and do-not-disturb (chat.use_slack_status)', () => {
  it('an expert in do-not-disturb is not asked until it ends, then is', async () => {
    kit = await startSlackKit({ mode: 'socket', config: STATUS_ON });
    const now = kit.clock.now();
    kit.slack.dnd.set('UDANA', { dnd_enabled: true, next_dnd_start_ts: seconds(now - HOUR), next_dnd_end_ts: seconds(now + 2 * HOUR) });
    const id = await askDana();
    expect(askPosts()).toHaveLength(0);
    expect((await request(id)).waiting).toEqual({ why: 'dnd', expert_id: 'UDANA', until: new Date(now + 2 * HOUR).toISOString(), timezone: 'UTC' });

    await kit.advance(HOUR);
    expect(askPosts()).toHaveLength(0);
    await kit.advance(HOUR);
    expect(askPosts()).toHaveLength(1);
    expect((await request(id)).status).toBe('asked');
  });

  it('an expert snoozing notifications is asked once the snooze ends', async () => {
    kit = await startSlackKit({ mode: 'socket', config: STATUS_ON });
    kit.slack.dnd.set('UDANA', { snooze_enabled: true, snooze_endtime: seconds(kit.clock.now() + 30 * 60_000) });
    const id = await askDana();
    expect((await request(id)).waiting).toMatchObject({ why: 'dnd' });
    await kit.advance(30 * 60_000);
    expect(askPosts()).toHaveLength(1);
  });

  it('a Slack error never blocks a send: the question goes out and the error is logged', async () => {
    kit = await startSlackKit({ mode: 'socket', config: STATUS_ON });
    kit.slack.script('dnd.info', { body: { ok: false, error: 'missing_scope' } });
    const id = await askDana();
    expect(askPosts()).toHaveLength(1);
    expect((await request(id)).status).toBe('asked');
    expect(kit.logs.lines.some((l) => l.level === 40 && l.expert_id === 'UDANA' && /chat status/.test(String(l.msg)))).toBe(true);
  });

  it('looks the status up at most once per expert in 5 minutes', async () => {
    kit = await startSlackKit({ mode: 'socket', config: STATUS_ON });
    await askDana();
    await kit.advance(60_000);
    await askDana('And for credit notes?');
    expect(askPosts()).toHaveLength(2);
    expect(lookups()).toEqual({ dnd: 1, profile: 1 });

    await kit.advance(5 * 60_000);
    await askDana('And for refunds?');
    expect(askPosts()).toHaveLength(3);
    expect(lookups()).toEqual({ dnd: 2, profile: 2 });
  });

  it('a submit does not wait for Slack: the question goes out once Slack answers', async () => {
    kit = await startSlackKit({ mode: 'socket', config: STATUS_ON });
    const release = kit.slack.hold('dnd.info');
    const res = await fetch(`${kit.server.url}/api/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackSubmit({ target_experts: ['UDANA'] })) });
    expect(res.status).toBe(200);
    const { request_id: id } = (await res.json()) as { request_id: string };
    await kit.slack.waitForCall((c) => c.method === 'dnd.info');
    expect(askPosts()).toHaveLength(0);
    // While Slack is asked, the request says it waits for the expert's do-not-disturb to be known.
    const view = (await (await fetch(`${kit.server.url}/api/v1/requests/${id}`)).json()) as { waiting: unknown };
    expect(view.waiting).toMatchObject({ why: 'dnd', expert_id: 'UDANA' });
    release();
    await kit.settle();
    expect(askPosts()).toHaveLength(1);
  });

  it('makes no status lookup when the setting is off (the default), even for an expert in do-not-disturb', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const now = kit.clock.now();
    kit.slack.dnd.set('UDANA', { dnd_enabled: true, next_dnd_start_ts: seconds(now - HOUR), next_dnd_end_ts: seconds(now + HOUR) });
    await askDana();
    expect(askPosts()).toHaveLength(1);
    expect(lookups()).toEqual({ dnd: 0, profile: 0 });
  });
});
