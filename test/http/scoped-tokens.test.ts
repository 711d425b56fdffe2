import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';
import { cleanEnv, makeWorkspace, runCli, serveWorkspace, TEST_TOKEN, type ServerProcess, type Workspace } from '../support/cli.js';

const ADMIN = 'admin-token-1';
const REVIEWER = 'reviewer-token-1';
const CONSUMER = 'consumer-token-1';
const credentials = [
  { name: 'Riley Reviewer', role: 'reviewer' as const, token: REVIEWER },
  { name: 'billing-bot', role: 'consumer' as const, token: CONSUMER },
];

let t: TestApp;
afterEach(async () => t?.close());

/** A request from billing-bot answered by Dana: a pending proposal. */
async function pendingProposal(): Promise<{ requestId: string; proposalId: string }> {
  const { body } = await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody());
  const reply = await t.callAs(ADMIN, 'POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
  return { requestId: body.request_id, proposalId: reply.body.proposal_id };
}

describe('scoped tokens (server.tokens)', () => {
  it('a consumer token submits and reads its own requests but cannot decide anything (403 forbidden)', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { requestId, proposalId } = await pendingProposal();
    expect((await t.callAs(CONSUMER, 'GET', `/api/v1/requests/${requestId}`)).status).toBe(200);

    for (const [method, url, body] of [
      ['POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'billing-bot' }],
      ['POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'billing-bot', reason: 'no' }],
      ['GET', '/api/v1/queue', undefined],
      ['GET', '/api/v1/proposals?status=pending', undefined],
      ['PUT', '/api/v1/experts', []],
      ['POST', '/api/v1/replies', { expert_id: 'dana', text: 'mute' }],
      ['GET', '/api/v1/audit?request_id=' + requestId, undefined],
      ['GET', '/api/v1/consumers', undefined],
    ] as const) {
      const res = await t.callAs(CONSUMER, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error, `${method} ${url}`).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/billing-bot.*consumer role, which may not call/) });
    }
    expect((await t.callAs(ADMIN, 'GET', `/api/v1/proposals/${proposalId}`)).body.status).toBe('pending');
  });

  it('a consumer token acts only as its own consumer and sees only its own requests', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const other = (await t.callAs(ADMIN, 'POST', '/api/v1/requests', submitBody({ consumer_id: 'kb-writer' }))).body.request_id;
    const own = (await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody())).body.request_id;

    const asOther = await t.callAs(CONSUMER, 'POST', '/api/v1/requests', submitBody({ consumer_id: 'kb-writer' }));
    expect(asOther.status).toBe(403);
    expect(asOther.body.error.message).toMatch(/only submit as consumer "billing-bot"/);
    expect((await t.callAs(CONSUMER, 'GET', `/api/v1/requests/${other}`)).status).toBe(404);
    expect((await t.callAs(CONSUMER, 'POST', `/api/v1/requests/${other}/cancel`, {})).status).toBe(404);
    const list = (await t.callAs(CONSUMER, 'GET', '/api/v1/requests')).body.items as Array<{ id: string }>;
    expect(list.map((r) => r.id)).toEqual([own]);
    expect((await t.callAs(CONSUMER, 'GET', '/api/v1/requests?consumer_id=kb-writer')).status).toBe(403);

    const self = { handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'https://hooks.example.com/x' } };
    expect((await t.callAs(CONSUMER, 'POST', '/api/v1/consumers', { id: 'kb-writer', ...self })).status).toBe(403);
    expect((await t.callAs(CONSUMER, 'POST', `/api/v1/requests/${own}/cancel`, {})).body.status).toBe('failed');
  });

  it('a reviewer token decides as its own name; the typed name is kept as a note in the audit', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { requestId, proposalId } = await pendingProposal();
    const res = await t.callAs(REVIEWER, 'POST', `/api/v1/proposals/${proposalId}/accept`, { decided_by: 'Mallory', note: 'ok' });
    expect(res.status).toBe(200);
    expect(res.body.decision).toMatchObject({ decided_by: 'Riley Reviewer', note: 'ok' });
    const decided = ((await t.callAs(REVIEWER, 'GET', `/api/v1/audit?request_id=${requestId}`)).body as Array<{ type: string; actor: string; data: Record<string, unknown> }>).find((e) => e.type === 'decided')!;
    expect(decided.actor).toBe('reviewer:Riley Reviewer');
    expect(decided.data.typed_by).toBe('Mallory');
  });

  it('a reviewer token reviews and reads but does not manage experts, reply as an expert or see deliveries', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    await pendingProposal();
    for (const url of ['/api/v1/queue', '/api/v1/experts', '/api/v1/requests', '/api/v1/proposals?status=pending']) {
      expect((await t.callAs(REVIEWER, 'GET', url)).status, url).toBe(200);
    }
    for (const [method, url, body] of [
      ['POST', '/api/v1/experts/dana/unmute', undefined],
      ['PUT', '/api/v1/experts', []],
      ['POST', '/api/v1/replies', { expert_id: 'dana', text: 'skip' }],
      ['GET', '/api/v1/deliveries', undefined],
      ['POST', '/api/v1/requests', submitBody()],
    ] as const) {
      expect((await t.callAs(REVIEWER, method, url, body)).status, `${method} ${url}`).toBe(403);
    }
  });

  it('the single admin token decides with the body decided_by, as the seed says; GET /me names each token', async () => {
    t = await buildTestApp({ token: ADMIN, credentials });
    const { proposalId } = await pendingProposal();
    // The main token has no name, so the body must say who decides.
    const nameless = await t.callAs(ADMIN, 'POST', `/api/v1/proposals/${proposalId}/reject`, { reason: 'outdated' });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/^decided_by is required/), details: [{ path: 'decided_by', message: 'is required' }] });
    const res = await t.callAs(ADMIN, 'POST', `/api/v1/proposals/${proposalId}/reject`, { decided_by: 'ops', reason: 'outdated' });
    expect(res.body.decision.decided_by).toBe('ops');
    expect((await t.callAs(ADMIN, 'GET', '/api/v1/me')).body).toEqual({ name: null, role: 'admin', via: 'token', routes: '*' });
    expect((await t.callAs(REVIEWER, 'GET', '/api/v1/me')).body).toMatchObject({ name: 'Riley Reviewer', role: 'reviewer', routes: expect.arrayContaining(['POST /proposals/:id/accept']) });
    expect((await t.callAs(CONSUMER, 'GET', '/api/v1/me')).body).toMatchObject({ name: 'billing-bot', role: 'consumer' });
    expect((await t.callAs('nope', 'GET', '/api/v1/me')).status).toBe(401);
  });
});

describe('scoped tokens at start-up', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('refuses to start when a scoped token variable is unset, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-tokens-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, server: { tokens: [{ name: 'Riley', token_env: 'RILEY_TOKEN', role: 'reviewer' }] } }));
    const { log } = captureLogger();
    await expect(startServer({ configPath: join(dir, 'service.yaml'), env: {}, logger: log, port: 0 })).rejects.toThrow(/RILEY_TOKEN \(server\.tokens, token "Riley"\) is not set/);
  });

  it.each([
    ['the admin token', { SERVICE_API_TOKEN: 'same-value', RILEY_TOKEN: 'same-value', BOT_TOKEN: 'bot' }, /RILEY_TOKEN .* SERVICE_API_TOKEN|SERVICE_API_TOKEN .* RILEY_TOKEN/],
    ['another scoped token', { SERVICE_API_TOKEN: 'admin', RILEY_TOKEN: 'same-value', BOT_TOKEN: 'same-value' }, /RILEY_TOKEN .* BOT_TOKEN|BOT_TOKEN .* RILEY_TOKEN/],
  ])('refuses to start when a scoped token has the same value as %s, naming both variables', async (_what, env, names) => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-tokens-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'service.yaml'),
      stringify({
        org: { name: 'Acme' },
        server: { tokens: [{ name: 'Riley', token_env: 'RILEY_TOKEN', role: 'reviewer' }, { name: 'billing-bot', token_env: 'BOT_TOKEN', role: 'consumer' }] },
      }),
    );
    const { log } = captureLogger();
    const started = startServer({ configPath: join(dir, 'service.yaml'), env, logger: log, port: 0 });
    await expect(started).rejects.toThrow(names);
    await expect(started).rejects.toThrow(/same value/);
  });

  it('with only scoped tokens, authentication is on and no warning says otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-tokens-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, server: { tokens: [{ name: 'Riley', token_env: 'RILEY_TOKEN', role: 'reviewer' }] } }));
    const { log, logs } = captureLogger();
    const server = await startServer({ configPath: join(dir, 'service.yaml'), env: { RILEY_TOKEN: REVIEWER }, logger: log, port: 0 });
    try {
      expect((await fetch(`${server.url}/api/v1/queue`)).status).toBe(401);
      expect((await fetch(`${server.url}/api/v1/queue`, { headers: { authorization: `Bearer ${REVIEWER}` } })).status).toBe(200);
      expect(logs.text).not.toMatch(/authentication is DISABLED/);
    } finally {
      await server.close();
    }
  });
});

describe('scoped tokens from the command line', () => {
  let ws: Workspace | undefined;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    ws?.remove();
  });

  it('a consumer token gets 403 on accept and reject, with what the token may not do', async () => {
    ws = await makeWorkspace();
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.setIn(['server', 'tokens'], [{ name: 'billing-bot', token_env: 'BOT_TOKEN', role: 'consumer' }]);
    writeFileSync(ws.configFile, doc.toString());
    writeFileSync(join(ws.dir, '.env'), `BOT_TOKEN=${CONSUMER}\n`);
    server = await serveWorkspace(ws);
    const asConsumer = cleanEnv({ EXPERTQ_TOKEN: CONSUMER });
    const asked = await runCli(['--config', ws.configFile, 'ask', 'Grace period?', '--topic', 'billing', '--because', 'the ledger', '--consumer', 'billing-bot'], { env: asConsumer });
    expect(asked.code).toBe(0);
    const reply = await runCli(['--config', ws.configFile, '--json', 'reply', 'dana', 'Thirty days.'], { env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }) });
    const proposalId = JSON.parse(reply.stdout).proposal_id as string;
    for (const args of [['accept', proposalId], ['reject', proposalId, '--reason', 'no']]) {
      const res = await runCli(['--config', ws.configFile, ...args], { env: asConsumer });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/403 forbidden: This token \(billing-bot\) has the consumer role, which may not call POST \/proposals\/:id\/(accept|reject)/);
    }
  });
});
