import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { childConfig } from '../support/child-config.js';
import { cleanEnv, TEST_TOKEN } from '../support/cli.js';
import { FakeTeams } from '../support/fake-teams.js';
import { ServerChild } from '../support/server-child.js';
import { personalConversationId, teamsUser } from '../support/teams-activities.js';
import { until } from '../support/until.js';

const WAIT_MS = 20_000;
let child: ServerChild | null = null;
let fake: FakeTeams | null = null;
let dir: string | null = null;
afterEach(async () => {
  await child?.kill9();
  child = null;
  await fake?.close();
  fake = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('Teams across a crash', () => {
  it('kill -9 while answers are being taken: each redelivered answer counts once, none is lost', async () => {
    fake = await FakeTeams.start();
    const dana = teamsUser('Dana Smith');
    let configFile: string;
    let base: string;
    ({ dir, configFile, base } = await childConfig('expertq-teams-kill-', {
      defaults: { max_open_asks_per_expert: 100, max_asks_per_expert_per_day: 100 },
      teams: { app_id: fake.appId, app_password_env: 'TEAMS_APP_PASSWORD', tenant_id: fake.tenantId, cloud: fake.cloud },
      experts: [{ id: 'dana', name: 'Dana Smith', topics: ['billing'], teams: dana.aadObjectId }],
    }));
    child = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, TEAMS_APP_PASSWORD: fake.appPassword }));
    await child.start();
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as unknown;
    };
    const pending = async () => (await api('/proposals?status=pending')) as Array<{ request_id: string; answer: string }>;
    const messages = `${base}/api/v1/teams/messages`;
    expect((await fake.post(messages, fake.activities.installation(dana))).status).toBe(200);
    const N = 30;
    for (let i = 0; i < N; i++) await api('/requests', submitBody({ question: `Question number ${i}: how long do refunds take?` }));
    const cards = () => fake!.callsTo(personalConversationId(dana)).filter((c) => c.method === 'POST' && c.body.attachments);
    await until(() => cards().length === N, WAIT_MS, 'every question was posted', () => child!.diagnostics());
    const presses = cards().map((c) => {
      const data = c.body.attachments[0].content.actions[0].data;
      return fake!.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...data, answer: `Thirty days (${data.ask_id}).` }, replyToId: c.created! });
    });

    // Every answer pressed at once; the server is killed as soon as the first one is committed.
    const first = Promise.allSettled(presses.map((p) => fake!.post(messages, p)));
    await until(async () => (await pending()).length >= 1, WAIT_MS, 'the first answer became a proposal', () => child!.diagnostics(), 5);
    await child.kill9();
    await first;
    await child.start();
    // The Bot Framework redelivers what it got no answer for; here every press comes again, answered or not.
    const again = await Promise.all(presses.map((p) => fake!.post(messages, p)));
    expect(again.map((r) => r.status)).toEqual(presses.map(() => 200));
    const proposals = await pending();
    expect(proposals).toHaveLength(N);
    expect(new Set(proposals.map((p) => p.request_id)).size).toBe(N);
  });
});
