import { PUBLIC, withOverrides } from '@microsoft/teams.api';
import { App, type HttpRouteHandler, type IHttpServerAdapter } from '@microsoft/teams.apps';
import { afterEach, describe, expect, it } from 'vitest';
import { BOT_SCOPE, FakeTeams, type SignOptions } from '../../support/fake-teams.js';
import { personalConversationId, teamsUser, type TeamsActivity } from '../../support/teams-activities.js';

// What these tests pin down is how the real Microsoft Teams SDK talks to Microsoft's services, so
// that the fake stands in for them faithfully and the options below are the ones product code uses.

/** Captures the route the SDK registers, so tests call it as the HTTP layer would. */
class CapturingAdapter implements IHttpServerAdapter {
  readonly routes = new Map<string, HttpRouteHandler>();
  registerRoute(_method: 'POST', path: string, handler: HttpRouteHandler): void {
    this.routes.set(path, handler);
  }
}

/** Keeps the SDK's log lines (its console logger would print every refused token). */
function quietLogger(lines: string[] = []) {
  const logger = {
    debug: () => {},
    trace: () => {},
    info: () => {},
    warn: (...msg: unknown[]) => void lines.push(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => void lines.push(msg.map(String).join(' ')),
    log: () => {},
    child: () => logger,
  };
  return logger;
}

/**
 * The bot's own token as a plain client-credentials POST to `<login>/<tenant>/oauth2/v2.0/token`;
 * the identity provider's refusal becomes an Error carrying its `error_description` (AADSTS...).
 */
function clientCredentials(loginUrl: string, clientId: string, clientSecret: string) {
  return async (scope: string | string[], tenantId?: string): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: [scope].flat().join(' ') });
    const res = await fetch(`${loginUrl}/${tenantId}/oauth2/v2.0/token`, { method: 'POST', body: form });
    const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!res.ok || !body.access_token) throw new Error(`The identity provider refused the bot's token: ${body.error_description ?? body.error ?? res.status}`);
    return body.access_token;
  };
}

let fake: FakeTeams;
afterEach(async () => fake?.close());

/** An App pointed at the fake the way product code will point it, through `teams.cloud`. */
function appAgainstFake(options: { secret?: string; log?: string[] } = {}) {
  const adapter = new CapturingAdapter();
  const cloud = withOverrides(PUBLIC, {
    loginEndpoint: fake.cloud.login_url,
    openIdMetadataUrl: fake.cloud.openid_metadata_url,
    tokenIssuer: fake.cloud.token_issuer,
    tokenServiceUrl: fake.tokenServiceUrl,
  });
  const app = new App({
    clientId: fake.appId,
    tenantId: fake.tenantId,
    // Not `clientSecret`: with it the SDK uses MSAL, which refuses an http authority, and it wins over `token`.
    token: clientCredentials(fake.cloud.login_url, fake.appId, options.secret ?? fake.appPassword),
    serviceUrl: fake.cloud.api_url,
    cloud,
    httpServerAdapter: adapter,
    logger: quietLogger(options.log),
  });
  return { app, adapter };
}

/** A fresh fake and an initialized App that counts the activities reaching its handlers. */
async function countingApp() {
  fake = await FakeTeams.start();
  const { app, adapter } = appAgainstFake();
  let count = 0;
  app.on('activity', async () => void count++);
  await app.initialize();
  return { adapter, handled: () => count };
}

async function deliver(adapter: CapturingAdapter, activity: TeamsActivity, sign: SignOptions = {}) {
  const authorization = await fake.signActivity(activity, sign);
  const handler = adapter.routes.get('/api/messages');
  if (!handler) throw new Error('the SDK registered no /api/messages route');
  return handler({ body: activity, headers: authorization ? { authorization } : {} });
}

describe('the Teams SDK against the fake Microsoft services', () => {
  it('passes a properly signed activity to the handler, whose reply reaches the Bot Connector with a token the fake issued', async () => {
    fake = await FakeTeams.start();
    const { app, adapter } = appAgainstFake();
    const seen: TeamsActivity[] = [];
    app.on('message', async ({ activity, send }) => {
      seen.push(activity as unknown as TeamsActivity);
      await send('Noted.');
    });
    await app.initialize();
    const dana = teamsUser('Dana');
    const activity = fake.activities.message(dana, 'hello there');

    const res = await deliver(adapter, activity);

    expect(res.status).toBe(200);
    expect(seen.map((a) => [a.id, a.text, a.from.aadObjectId])).toEqual([[activity.id, 'hello there', dana.aadObjectId]]);
    expect(fake.calls.map((c) => [c.method, c.conversationId, c.body?.text, c.status])).toEqual([['POST', personalConversationId(dana), 'Noted.', 200]]);
    // Two token requests: the user-token lookup the SDK makes before every handler, and the reply.
    // The SDK calls the `token` option on every outbound request and keeps nothing: caching is ours.
    expect(fake.tokenRequests).toHaveLength(2);
    expect(fake.tokenRequests.every((r) => r.granted && r.scope === BOT_SCOPE && r.tenantId === fake.tenantId && r.clientId === fake.appId)).toBe(true);
  });

  it('answers 401 to unsigned, wrongly signed, expired, wrong-audience, wrong-issuer and wrong-serviceUrl activities, and never calls the handler', async () => {
    const { adapter, handled } = await countingApp();
    const dana = teamsUser('Dana');
    const cases: Array<[string, SignOptions]> = [
      ['unsigned', { unsigned: true }],
      ['signed by a key the metadata does not list', { unknownKey: true }],
      ['expired', { expired: true }],
      ['for another app', { audience: 'another-app-id' }],
      ['from another issuer', { issuer: 'https://sts.windows.net/evil/' }],
      ['for another serviceUrl', { serviceUrl: 'https://smba.trafficmanager.net/emea/' }],
    ];
    for (const [label, sign] of cases) {
      const res = await deliver(adapter, fake.activities.message(dana, 'hello'), sign);
      // The SDK's own 401 body, which the product route replaces with its error shape.
      expect([label, res]).toEqual([label, { status: 401, body: { error: sign.unsigned ? 'Missing authorization header' : 'JWT validation failed' } }]);
    }
    expect(handled()).toBe(0);
    expect(fake.calls).toEqual([]);
  });

  it('lets a signed activity without serviceUrl through: the serviceurl claim is compared only when the body has one', async () => {
    const { adapter, handled } = await countingApp();
    const { serviceUrl: _dropped, ...bare } = fake.activities.message(teamsUser('Dana'), 'hello');

    const authorization = await fake.signActivity({}, { serviceUrl: 'https://smba.trafficmanager.net/emea/' });
    const res = await adapter.routes.get('/api/messages')!({ body: bare, headers: { authorization: authorization! } });

    expect([res.status, handled()]).toEqual([200, 1]);
  });

  it('routes installation, the bot joining, channel messages and card actions under the names product code uses', async () => {
    fake = await FakeTeams.start();
    const { app, adapter } = appAgainstFake();
    const seen: string[] = [];
    app.on('install.add', async ({ activity }) => void seen.push(`install ${activity.conversation.id} ${activity.conversation.tenantId}`));
    app.on('conversationUpdate', async ({ activity }) => void seen.push(`joined ${activity.membersAdded?.map((m) => m.id).join(',')}`));
    app.on('message', async ({ activity }) => void seen.push(`${activity.conversation.conversationType} ${activity.channelData?.channel?.id} ${activity.text}`));
    app.on('card.action', async ({ activity }) => {
      seen.push(`card ${activity.value.action.verb} ${JSON.stringify(activity.value.action.data)} ${activity.replyToId}`);
      return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: 'Skipped.' };
    });
    await app.initialize();
    const dana = teamsUser('Dana');
    const review = { channelId: '19:review@thread.tacv2', teamId: '19:team@thread.tacv2' };

    expect((await deliver(adapter, fake.activities.installation(dana))).status).toBe(200);
    expect((await deliver(adapter, fake.activities.conversationUpdate(dana))).status).toBe(200);
    expect((await deliver(adapter, fake.activities.message(dana, 'pending?', { channel: review }))).status).toBe(200);
    const invoke = await deliver(adapter, fake.activities.cardAction(dana, { verb: 'skip', data: { ask: 'a1' }, replyToId: '1700000000001' }));

    expect(invoke).toEqual({ status: 200, body: { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: 'Skipped.' } });
    expect(seen).toEqual([
      `install ${personalConversationId(dana)} ${fake.tenantId}`,
      `joined 28:${fake.appId},${dana.id}`,
      'channel 19:review@thread.tacv2 <at>expertq</at> pending?',
      'card skip {"ask":"a1"} 1700000000001',
    ]);
  });

  it('sends proactively with app.send to the Bot Connector at api_url, and the fake records the call', async () => {
    fake = await FakeTeams.start();
    const { app } = appAgainstFake();
    await app.initialize();

    const sent = await app.send('a:1personal-dana', { type: 'message', text: 'A question for you' });

    expect(sent.id).toMatch(/^1\d+$/);
    expect(fake.callsTo('a:1personal-dana').map((c) => [c.method, c.path, c.body.type, c.body.text, c.body.from.id, c.status])).toEqual([
      // The SDK names the bot by its bare app id here (activities name it `28:<app id>`).
      ['POST', '/teams/v3/conversations/a:1personal-dana/activities', 'message', 'A question for you', fake.appId, 200],
    ]);
  });

  it('surfaces a Bot Connector refusal as an error carrying the HTTP status and the error code', async () => {
    fake = await FakeTeams.start();
    const { app } = appAgainstFake();
    await app.initialize();
    fake.failConversation('a:gone', 403);
    fake.failConversation('a:busy', 429, { retryAfterSeconds: 7 });

    const refused = await app.send('a:gone', { type: 'message', text: 'hi' }).catch((e: unknown) => e);
    const throttled = await app.send('a:busy', { type: 'message', text: 'hi' }).catch((e: unknown) => e);

    expect(refused).toMatchObject({ response: { status: 403, data: { error: { code: 'BotNotInConversationRoster' } } } });
    expect(throttled).toMatchObject({ response: { status: 429, headers: { 'retry-after': '7' } } });

    // The fake Bot Connector takes only tokens its identity provider issued.
    const stranger = new App({ clientId: fake.appId, tenantId: fake.tenantId, token: () => fake.signActivity({}).then((h) => h!.slice(7)), serviceUrl: fake.cloud.api_url, httpServerAdapter: new CapturingAdapter(), logger: quietLogger() });
    await stranger.initialize();
    expect(await stranger.send('a:1personal-dana', { type: 'message', text: 'hi' }).catch((e: unknown) => e)).toMatchObject({ response: { status: 401 } });
  });

  it('rejects a send with the identity provider\'s AADSTS text when the client secret is refused', async () => {
    fake = await FakeTeams.start();
    const { app } = appAgainstFake({ secret: 'not-the-secret' });
    await app.initialize();

    await expect(app.send('a:1personal-dana', { type: 'message', text: 'hi' })).rejects.toThrow(/AADSTS7000215: Invalid client secret provided/);
    expect(fake.tokenRequests.map((r) => r.granted)).toEqual([false]);
    expect(fake.calls).toEqual([]);

    fake.refuseTokens(true);
    const good = appAgainstFake();
    await good.app.initialize();
    await expect(good.app.send('a:1personal-dana', { type: 'message', text: 'hi' })).rejects.toThrow(/AADSTS7000215/);
  });

  it('cannot reach the fake through clientSecret: MSAL refuses an http authority, hence the token option', async () => {
    fake = await FakeTeams.start();
    const app = new App({
      clientId: fake.appId,
      clientSecret: fake.appPassword,
      tenantId: fake.tenantId,
      serviceUrl: fake.cloud.api_url,
      cloud: withOverrides(PUBLIC, { loginEndpoint: fake.cloud.login_url }),
      httpServerAdapter: new CapturingAdapter(),
      logger: quietLogger(),
    });
    await app.initialize();

    await expect(app.send('a:1personal-dana', { type: 'message', text: 'hi' })).rejects.toThrow(/authority_uri_insecure/);
    expect(fake.tokenRequests).toEqual([]);
  });
});
