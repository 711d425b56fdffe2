import { afterEach, describe, expect, it } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { startTeamsKit, type TeamsKit } from '../support/teams-kit.js';
import { personalConversationId, type TeamsUser } from '../support/teams-activities.js';

let kit: TeamsKit | null = null;
let smtp: TestSmtpServer | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
  await smtp?.close();
  smtp = null;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cards are JSON
const texts = (card: any): string[] => card.body.flatMap((b: any) => (b.type === 'RichTextBlock' ? b.inlines.map((i: any) => i.text) : []));

function asksTo(k: TeamsKit, user: TeamsUser) {
  return k.fake
    .callsTo(personalConversationId(user))
    .filter((c) => c.method === 'POST' && c.body.attachments?.[0]?.content?.actions)
    .map((c) => ({ activityId: c.created!, data: c.body.attachments[0].content.actions[0].data }));
}

/** Plain messages (no card) the bot posted to `user`. */
function notesTo(k: TeamsKit, user: TeamsUser): string[] {
  return k.fake.callsTo(personalConversationId(user)).filter((c) => c.method === 'POST' && !c.body.attachments).map((c) => c.body.text as string);
}

describe('the Teams messaging endpoint', () => {
  it('answers 401 in the error shape to anything the Bot Framework did not sign for this bot, and changes nothing', async () => {
    kit = await startTeamsKit();
    const { dana } = kit.people;
    const install = kit.fake.activities.installation(dana);
    const refusals = await Promise.all([
      kit.post(install, { unsigned: true }),
      kit.post(install, { unknownKey: true }),
      kit.post(install, { expired: true }),
      kit.post(install, { audience: 'another-app' }),
      kit.post(install, { serviceUrl: 'https://smba.evil.example/teams/' }),
      kit.post({ ...install, serviceUrl: '' }),
    ]);
    for (const r of refusals) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    // None of them installed anything: the question cannot go to Dana on Teams (no email channel here).
    await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    expect(asksTo(kit, dana)).toEqual([]);
  });

  it('refuses to start with one line: an unset secret, credentials the identity provider refuses, another tenant', async () => {
    await expect(startTeamsKit({ env: { TEAMS_APP_PASSWORD: '' } })).rejects.toThrow(/teams\.app_password_env names TEAMS_APP_PASSWORD, which is not set/);
    await expect(startTeamsKit({ env: { TEAMS_APP_PASSWORD: 'wrong-secret' } })).rejects.toThrow(/identity provider refused the bot's credentials.*AADSTS7000215/);
    await expect(startTeamsKit({ config: { teams: { tenant_id: '11111111-2222-4333-8444-555555555555' } } })).rejects.toThrow(/identity provider refused the bot's credentials.*AADSTS700016/);
  });
});

describe('Teams replies', () => {
  it('reaches an expert who never installed the app by email instead, and the audit says how to install it', async () => {
    smtp = await startSmtpServer();
    kit = await startTeamsKit({ config: { email: { smtp_url_env: 'SMTP_URL', from: 'Acme expertq <expertq@acme.example>' } }, env: { SMTP_URL: smtp.url } });
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    expect(smtp.messages.map((m) => m.envelope.to[0])).toEqual(['dana@acme.example']);
    const audit = (await kit.call('GET', `/api/v1/audit?request_id=${submitted.body.request_id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    const failed = audit.find((a) => a.type === 'channel_failed');
    expect(failed?.data).toMatchObject({ channel: 'teams', error: 'not_installed' });
    expect(String(failed?.data.hint)).toMatch(/Install the app for everyone/);
    expect(audit.filter((a) => a.type === 'asked').at(-1)?.data).toMatchObject({ channel: 'email' });
  });

  it('takes a typed answer for the one open question, and with two open says to answer in the card', async () => {
    kit = await startTeamsKit();
    const { dana } = kit.people;
    await kit.post(kit.fake.activities.installation(dana));
    const first = await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    expect((await kit.post(kit.fake.activities.message(dana, 'Thirty days.'))).status).toBe(200);
    const proposal = (await kit.call('GET', `/api/v1/requests/${first.body.request_id}`)).body;
    expect(proposal.status).toBe('proposed');

    await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'], question: 'And for credit notes?' }));
    await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'], question: 'And for store credit?' }));
    await kit.post(kit.fake.activities.message(dana, 'Ten days.'));
    expect(notesTo(kit, dana).at(-1)).toMatch(/2 open questions.*answer in the card of the question you mean/);
  });

  it('Skip passes the question on, Mute mutes, an empty answer changes nothing, and a redelivered press acts once', async () => {
    kit = await startTeamsKit();
    const { dana, lee } = kit.people;
    await kit.post(kit.fake.activities.installation(dana));
    await kit.post(kit.fake.activities.installation(lee));
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    const [ask] = asksTo(kit, dana);

    const empty = await kit.post(kit.fake.activities.cardAction(dana, { verb: 'expertq.answer', data: { ...ask!.data, answer: '  ' }, replyToId: ask!.activityId }));
    expect(texts(empty.body.value)).toContain('Write your answer in the box, then press Answer.');
    expect(empty.body.value.actions).toHaveLength(3);

    const skip = kit.fake.activities.cardAction(dana, { verb: 'expertq.skip', data: ask!.data, replyToId: ask!.activityId });
    expect(texts((await kit.post(skip)).body.value).at(-1)).toMatch(/Skipped/);
    expect(texts((await kit.post(skip)).body.value).at(-1)).toBe('Already handled.');
    const audit = (await kit.call('GET', `/api/v1/audit?request_id=${submitted.body.request_id}`)).body as Array<{ type: string }>;
    expect(audit.filter((a) => a.type === 'skipped')).toHaveLength(1);
    expect(asksTo(kit, lee)).toHaveLength(1);

    const [leeAsk] = asksTo(kit, lee);
    const mute = await kit.post(kit.fake.activities.cardAction(lee, { verb: 'expertq.mute', data: leeAsk!.data, replyToId: leeAsk!.activityId }));
    expect(texts(mute.body.value).at(-1)).toMatch(/Muted/);
    const experts = (await kit.call('GET', '/api/v1/experts')).body as Array<{ id: string; muted: boolean }>;
    expect(experts.find((e) => e.id === 'lee')?.muted).toBe(true);
  });
});
