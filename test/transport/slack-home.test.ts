import { afterEach, describe, expect, it } from 'vitest';
import { blockActions, type SlackCall } from '../support/fake-slack.js';
import { slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit;
afterEach(async () => kit?.close());

let next = 1;

/** The Events API callback Slack sends when a user opens the bot's Home tab. */
function homeOpened(user: string): Record<string, unknown> {
  return {
    type: 'event_callback',
    team_id: 'T1',
    api_app_id: 'A1',
    event_id: `EvHome${next++}`,
    event_time: 1700000100,
    event: { type: 'app_home_opened', user, channel: `D${user}`, tab: 'home', event_ts: '1700000100.000001' },
  };
}

interface AwayFields {
  date?: string;
  delegate?: string;
  note?: string;
}

/** A click on one of the Home tab's buttons, with the Away form's state as Slack sends it. */
function homeClick(user: string, actionId: string, form: AwayFields = {}): Record<string, unknown> {
  return {
    ...blockActions(user, `trig-home-${next++}`),
    container: { type: 'view', view_id: 'VHOME' },
    view: {
      id: 'VHOME',
      type: 'home',
      state: {
        values: {
          expertq_away_until: { date: { type: 'datepicker', selected_date: form.date ?? null } },
          expertq_away_delegate: { expert: { type: 'static_select', selected_option: form.delegate ? { value: form.delegate } : null } },
          expertq_away_note: { text: { type: 'plain_text_input', value: form.note ?? null } },
        },
      },
    },
    actions: [{ type: 'button', action_id: actionId, block_id: 'expertq_away', action_ts: '1700000200.000001' }],
  };
}

const publishes = (user: string): SlackCall[] => kit.slack.callsOf('views.publish').filter((c) => c.args.user_id === user);
const lastHome = (user: string): string => JSON.stringify(publishes(user).at(-1)?.args.view ?? null);
const expert = async (id: string) => ((await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean; away: Record<string, unknown> | null }>).find((e) => e.id === id)!;
const asksOf = async (requestId: string) => ((await kit.call('GET', `/api/v1/requests/${requestId}`)).body.asks as Array<{ expert_id: string; state: string }>);

async function askDana(): Promise<string> {
  const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'] }));
  return body.request_id as string;
}

describe('Slack App Home', () => {
  it('opening Home publishes the expert\'s open question, topics, mute and away state and the Away form', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const requestId = await askDana();
    await kit.deliver(homeOpened('UDANA'));
    const view = publishes('UDANA').at(-1)!.args.view as { type: string };
    expect(view.type).toBe('home');
    const text = lastHome('UDANA');
    expect(text).toContain(requestId);
    expect(text).toContain('What is the grace period for disputed invoices?');
    expect(text).toContain('10:00 UTC today');
    expect(text).toContain('billing, invoices');
    expect(text).toContain('expertq_home_mute');
    expect(text).toContain('"type":"datepicker"');
    // The delegate list offers the other experts, not the expert themselves.
    expect(text).toContain('"value":"ULEE"');
    expect(text).not.toContain('"value":"UDANA"');
  });

  it('works the same in HTTP mode: Home published, Away form submitted over signed requests', async () => {
    kit = await startSlackKit({ mode: 'http' });
    const requestId = await askDana();
    expect((await kit.deliver(homeOpened('UDANA'))).status).toBe(200);
    expect(lastHome('UDANA')).toContain(requestId);
    expect((await kit.deliver(homeClick('UDANA', 'expertq_home_away', { date: '2026-12-01', delegate: 'ULEE' }))).status).toBe(200);
    expect((await expert('UDANA')).away).toMatchObject({ delegate_to: 'ULEE', set_by: 'expert:UDANA' });
  });

  it('tells a Slack user who is not an expert that they are not registered', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    await kit.deliver(homeOpened('UNOBODY'));
    expect(lastHome('UNOBODY')).toContain('You are not registered as an expert');
  });

  it('the Away form sets the expert away, set by them, and passes the open question to the delegate at once; Back ends it', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const requestId = await askDana();
    await kit.deliver(homeClick('UDANA', 'expertq_home_away', { date: '2026-12-01', delegate: 'USAM', note: 'Holiday' }));

    expect((await expert('UDANA')).away).toMatchObject({ until: '2026-12-01T00:00:00.000Z', delegate_to: 'USAM', note: 'Holiday', set_by: 'expert:UDANA' });
    const asks = await asksOf(requestId);
    expect(asks.find((a) => a.expert_id === 'UDANA')!.state).not.toBe('open');
    expect(asks.find((a) => a.expert_id === 'USAM')!.state).toBe('open');
    expect(kit.slack.posts('DUSAM')).toHaveLength(1);
    // Re-published: the Home tab now says away until when, who stands in, and offers Back.
    expect(lastHome('UDANA')).toMatch(/Away\* until Tue 1 Dec 00:00 UTC, Sam Okafor stands in/);
    expect(lastHome('UDANA')).toContain('expertq_home_back');

    await kit.deliver(homeClick('UDANA', 'expertq_home_back'));
    expect((await expert('UDANA')).away).toBeNull();
    expect(lastHome('UDANA')).not.toContain('expertq_home_back');
  });

  it('an Away form without a date, or with a day already past, sets nothing and says why on the Home tab', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    await kit.deliver(homeClick('UDANA', 'expertq_home_away', { delegate: 'ULEE' }));
    expect((await expert('UDANA')).away).toBeNull();
    expect(lastHome('UDANA')).toContain('Pick the day you are back');

    await kit.deliver(homeClick('UDANA', 'expertq_home_away', { date: '2026-11-01' }));
    expect((await expert('UDANA')).away).toBeNull();
    expect(lastHome('UDANA')).toContain('is not in the future');
  });

  it('Mute and Unmute on the Home tab work as the mute and unmute replies do', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    const requestId = await askDana();
    await kit.deliver(homeClick('UDANA', 'expertq_home_mute'));
    expect((await expert('UDANA')).muted).toBe(true);
    // As with the `mute` reply, the open question is passed on.
    expect((await asksOf(requestId)).find((a) => a.expert_id === 'UDANA')!.state).not.toBe('open');
    expect(lastHome('UDANA')).toContain('expertq_home_unmute');

    await kit.deliver(homeClick('UDANA', 'expertq_home_unmute'));
    expect((await expert('UDANA')).muted).toBe(false);
    expect(lastHome('UDANA')).toContain('expertq_home_mute');
  });
});
