import { afterEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';
import { SLACK_EXPERTS, slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';
import { until } from '../support/until.js';

let kit: SlackKit | undefined;
let slack: FakeSlack | undefined;
afterEach(async () => {
  await kit?.close();
  await slack?.close();
  kit = undefined;
  slack = undefined;
});

const WARN = 40;
const warnings = () => kit!.logs.lines.filter((l) => l.level === WARN && l.check === 'slack_setup').map((l) => String(l.msg));

/** Starts the kit against `slack` and waits until the start-up checks are done (they run after start-up). */
async function startAndCheck(config: Record<string, unknown>): Promise<string[]> {
  kit = await startSlackKit({ mode: 'socket', slack, config });
  await until(() => kit!.logs.lines.some((l) => l.msg === 'Slack setup checked'), 5_000, 'the start-up checks are done', () => kit!.logs.text);
  return warnings();
}

describe('Slack start-up checks', () => {
  it('warns once per expert id that is unknown, deactivated or a bot, and when the bot is not in the review channel', async () => {
    slack = await new FakeSlack().start();
    slack.users.set('ULEE', null);
    slack.users.set('USAM', { real_name: 'Sam Okafor', deleted: true });
    slack.users.set('UCIBOT', { real_name: 'CI', is_bot: true });
    slack.channels.set('CREVIEW', { name: 'expertq-review', is_member: false });
    const experts = [...SLACK_EXPERTS, { id: 'UCIBOT', name: 'Build Bot', topics: ['ci'] }];

    const lines = await startAndCheck({ experts, chat: { review_channel: 'CREVIEW' } });

    expect(lines).toHaveLength(4);
    expect(lines).toContainEqual(expect.stringMatching(/^Expert ULEE \(Lee Chen\) is not a Slack user of this workspace \(users\.info: user_not_found\)/));
    expect(lines).toContainEqual(expect.stringMatching(/^Expert USAM \(Sam Okafor\) has a deactivated Slack account/));
    expect(lines).toContainEqual(expect.stringMatching(/^Expert UCIBOT \(Build Bot\) is a Slack bot/));
    expect(lines).toContainEqual(expect.stringMatching(/The bot is not a member of the review channel #expertq-review \(CREVIEW\).*\/invite @/));
    expect(lines.join('\n')).not.toContain('UDANA');
    // The checks never stop the server: asks still go out.
    await kit!.call('POST', '/api/v1/requests', slackSubmit());
    expect(kit!.slack.posts('DUDANA')).toHaveLength(1);
  });

  it('checks quietly when everything is in order', async () => {
    slack = await new FakeSlack().start();
    const lines = await startAndCheck({ chat: { review_channel: 'CREVIEW' } });
    expect(slack.callsOf('conversations.info').map((c) => c.args.channel)).toEqual(['CREVIEW']);
    expect(slack.callsOf('users.info').map((c) => c.args.user).sort()).toEqual(['UDANA', 'ULEE', 'USAM']);
    expect(lines).toEqual([]);
  });

  it('logs a Slack error in a check as one warning and starts anyway', async () => {
    slack = await new FakeSlack().start();
    slack.script('users.info', { body: { ok: false, error: 'missing_scope', needed: 'users:read' } });
    slack.channels.set('CREVIEW', null);

    const lines = await startAndCheck({ chat: { review_channel: 'CREVIEW' } });

    expect(lines).toHaveLength(2);
    expect(lines).toContainEqual(expect.stringMatching(/^Could not check the experts' Slack accounts \(users\.info: missing_scope\).*users:read/));
    expect(lines).toContainEqual(expect.stringMatching(/^The review channel CREVIEW \(chat\.review_channel\) was not found.*\/invite @/));
    // One failed check stops the others of its kind: one line, not one per expert.
    expect(slack.callsOf('users.info')).toHaveLength(1);
  });
});
