import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { BIN, cleanEnv, freePort, SPAWN_TIMEOUT_MS } from '../support/cli.js';
import { captureLogger } from '../support/capture.js';
import { APP_TOKEN, BOT_TOKEN, dmMessage, FakeSlack, SIGNING_SECRET } from '../support/fake-slack.js';
import { ServerChild } from '../support/server-child.js';
import { SLACK_EXPERTS, slackSubmit, startSlackKit, type SlackKit } from '../support/slack-kit.js';

let kit: SlackKit | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await kit?.close();
  kit = undefined;
  for (const c of cleanups.splice(0)) await c();
});

const audit = async (id: string) => (await kit!.call('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;

describe('Slack errors', () => {
  it('passes an ask on when Slack says the expert cannot be reached (user_not_found), audited ask_undeliverable', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    kit.slack.script('conversations.open', { body: { ok: false, error: 'user_not_found' } });
    const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit());
    await kit.settle();
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.status).toBe('escalated');
    expect(request.asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state])).toEqual([['UDANA', 'skipped'], ['ULEE', 'open']]);
    const undeliverable = (await audit(body.request_id)).find((e) => e.type === 'ask_undeliverable');
    expect(undeliverable?.data).toMatchObject({ expert_id: 'UDANA', code: 'user_not_found' });
    expect(kit.slack.posts('DULEE')).toHaveLength(1);
    // Dana's open-ask count was released.
    const dana = ((await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; open_asks: number }>).find((e) => e.id === 'UDANA')!;
    expect(dana.open_asks).toBe(0);
  });

  it('fails the request with expert_declined when an unreachable expert has nobody to pass to', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    kit.slack.script('chat.postMessage', { body: { ok: false, error: 'account_inactive' } });
    const { body } = await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['USAM'], topic: 'deployments' }));
    await kit.settle();
    const request = (await kit.call('GET', `/api/v1/requests/${body.request_id}`)).body;
    expect(request.reason).toMatchObject({ code: 'expert_declined', message: expect.stringMatching(/could not be reached/) });
  });

  it.each([
    ['not_in_channel', { is_member: false }, /not a member of the review channel CREVIEW.*\/invite @/],
    ['channel_not_found', null, /review channel CREVIEW \(chat\.review_channel\) was not found.*check chat\.review_channel/],
  ] as const)('does not retry a review card Slack refuses with %s, and logs the fix at error level', async (code, channel, fix) => {
    const slack = await new FakeSlack().start();
    cleanups.push(() => slack.close());
    slack.channels.set('CREVIEW', channel);
    kit = await startSlackKit({ mode: 'socket', slack, config: { chat: { review_channel: 'CREVIEW', reviewers: ['UREV'] }, review: { remind_after: '1d' } } });
    await kit.call('POST', '/api/v1/requests', slackSubmit({ target_experts: ['UDANA'] }));
    const askPost = kit.slack.posts('DUDANA').at(-1)!;
    await kit.deliver(dmMessage('UDANA', 'Thirty days.', { threadTs: askPost.response!.ts }));

    expect(slack.posts('CREVIEW')).toHaveLength(1);
    expect(slack.posts('CREVIEW')[0]!.response).toMatchObject({ ok: false, error: code });
    for (const ms of [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000]) await kit.advance(ms);
    expect(slack.posts('CREVIEW')).toHaveLength(1);
    const failed = kit.logs.lines.filter((l) => l.level === 50 && l.code === code);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ msg: 'message to the review channel failed for good', attempts: 1 });
    expect(String(failed[0]!.err)).toMatch(fix);
  });

  it('retries a rate-limited message after Retry-After, not before', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    kit.slack.script('chat.postMessage', { status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } });
    await kit.call('POST', '/api/v1/requests', slackSubmit());
    expect(kit.slack.callsOf('chat.postMessage')).toHaveLength(1);
    await kit.advance(10_000);
    expect(kit.slack.callsOf('chat.postMessage')).toHaveLength(1);
    await kit.advance(21_000);
    expect(kit.slack.callsOf('chat.postMessage')).toHaveLength(2);
    expect(kit.slack.posts('DUDANA').at(-1)!.response).toMatchObject({ ok: true });
  });

  it('retries a 5xx from Slack with the outbox backoff', async () => {
    kit = await startSlackKit({ mode: 'socket' });
    kit.slack.script('chat.postMessage', { status: 503, body: { ok: false, error: 'service_unavailable' } }, 2);
    await kit.call('POST', '/api/v1/requests', slackSubmit());
    await kit.advance(5_000);
    await kit.advance(30_000);
    const posts = kit.slack.callsOf('chat.postMessage');
    expect(posts).toHaveLength(3);
    expect(posts.at(-1)!.response).toMatchObject({ ok: true });
  });
});

describe('Slack start-up', () => {
  async function tryStart(chat: Record<string, unknown> | null, env: Record<string, string>): Promise<{ error: Error; db: string }> {
    const slack = await new FakeSlack().start();
    const dir = mkdtempSync(join(tmpdir(), 'expertq-slack-start-'));
    cleanups.push(() => slack.close(), () => rmSync(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'service.yaml');
    const section = chat === null ? {} : { chat: { api_url: slack.apiUrl, ...chat } };
    writeFileSync(configFile, stringify({ org: { name: 'Acme' }, experts: SLACK_EXPERTS, ...section }));
    const { log } = captureLogger();
    const error = await startServer({ configPath: configFile, transport: 'chat', env, logger: log, port: 0 }).then(
      async (server) => {
        await server.close();
        throw new Error('the server started');
      },
      (e: Error) => e,
    );
    return { error, db: join(dir, 'expertq.db') };
  }

  const socket = { bot_token_env: 'SLACK_BOT_TOKEN', app_token_env: 'SLACK_APP_TOKEN' };

  it.each([
    ['no chat section', null, {}, /needs a "chat" section/],
    ['the bot token variable unset', socket, { SLACK_APP_TOKEN: APP_TOKEN }, /SLACK_BOT_TOKEN \(chat\.bot_token_env\) is not set/],
    ['the app token variable unset', socket, { SLACK_BOT_TOKEN: BOT_TOKEN }, /SLACK_APP_TOKEN \(chat\.app_token_env\) is not set/],
    ['neither mode configured', { bot_token_env: 'SLACK_BOT_TOKEN' }, { SLACK_BOT_TOKEN: BOT_TOKEN }, /app_token_env \(Socket Mode, recommended\) or signing_secret_env/],
    ['the signing secret unset', { bot_token_env: 'SLACK_BOT_TOKEN', signing_secret_env: 'SLACK_SIGNING_SECRET' }, { SLACK_BOT_TOKEN: BOT_TOKEN }, /SLACK_SIGNING_SECRET/],
    ['a bot token auth.test refuses', socket, { SLACK_BOT_TOKEN: 'xoxb-revoked', SLACK_APP_TOKEN: APP_TOKEN }, /Slack refused the bot token in SLACK_BOT_TOKEN \(auth\.test: invalid_auth\)/],
    ['an app token Slack refuses', socket, { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: 'xapp-revoked' }, /could not start: invalid_auth \(check SLACK_APP_TOKEN\)/],
  ] as const)('refuses to start with %s, naming what is wrong', async (_why, chat, env, message) => {
    const { error, db } = await tryStart(chat, env);
    expect(error.message).toMatch(message);
    if (!/app token Slack refuses/.test(_why)) expect(existsSync(db)).toBe(false);
  });

  it('exits 1 from the command line with the message on stderr', async () => {
    const slack = await new FakeSlack().start();
    const dir = mkdtempSync(join(tmpdir(), 'expertq-slack-cli-'));
    cleanups.push(() => slack.close(), () => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, chat: { ...socket, api_url: slack.apiUrl }, experts: SLACK_EXPERTS }));
    // Asynchronous: the fake Slack answering auth.test lives in this process.
    const run = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'serve', '--transport', 'chat', '--config', join(dir, 'service.yaml')],
        { env: cleanEnv({ SLACK_BOT_TOKEN: 'xoxb-revoked', SLACK_APP_TOKEN: APP_TOKEN }), encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS },
        (error, _stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      );
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^expertq: Slack refused the bot token in SLACK_BOT_TOKEN \(auth\.test: invalid_auth\)/);
  });
});

describe('Slack and kill -9', () => {
  it('loses no reply when the server dies between Slack’s event and the commit: Slack redelivers, once', async () => {
    const slack = await new FakeSlack().start();
    const dir = mkdtempSync(join(tmpdir(), 'expertq-slack-kill-'));
    const configFile = join(dir, 'service.yaml');
    // A port of its own: the default one may be serving already (a developer's `npm start`).
    writeFileSync(configFile, stringify({ org: { name: 'Acme' }, server: { port: await freePort() }, chat: { ...{ bot_token_env: 'SLACK_BOT_TOKEN', app_token_env: 'SLACK_APP_TOKEN' }, api_url: slack.apiUrl }, experts: SLACK_EXPERTS }));
    const server = new ServerChild(configFile, cleanEnv({ SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET }), ['--transport', 'chat']);
    cleanups.push(async () => {
      await server.kill9();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    });

    let connected = slack.nextConnection();
    const url = await server.start();
    await connected;
    const submitted = await (await fetch(`${url}/api/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackSubmit()) })).json() as { request_id: string };
    const askPost = await slack.waitForCall((c) => c.method === 'chat.postMessage' && c.args.channel === 'DUDANA');

    // The event goes out and the process is killed at once: before, during or after the commit.
    void slack.envelope('events_api', dmMessage('UDANA', 'Thirty days.', { threadTs: askPost.response!.ts, eventId: 'EvKILL' }));
    await server.kill9();

    connected = slack.nextConnection();
    const again = await server.start();
    await connected;
    await slack.redeliverUnacked();
    const trail = await (await fetch(`${again}/api/v1/audit?request_id=${submitted.request_id}`)).json() as Array<{ type: string }>;
    expect(trail.filter((e) => e.type === 'replied')).toHaveLength(1);
    expect(trail.filter((e) => e.type === 'proposed')).toHaveLength(1);
    const request = await (await fetch(`${again}/api/v1/requests/${submitted.request_id}`)).json() as { status: string };
    expect(request.status).toBe('proposed');
    expect(server.errors).toEqual([]);
  });
});
