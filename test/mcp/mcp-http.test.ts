import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { EXAMPLE_EXPERTS } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';

const ADMIN = 'mcp-admin-token';
const REVIEWER = 'mcp-reviewer-token';
const CONSUMER = 'mcp-consumer-token';

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-mcp-'));
  writeFileSync(
    join(dir, 'service.yaml'),
    stringify({
      org: { name: 'Acme' },
      server: { tokens: [{ name: 'Riley', token_env: 'RILEY', role: 'reviewer' }, { name: 'agent-bot', token_env: 'AGENT', role: 'consumer' }] },
      experts: EXAMPLE_EXPERTS,
      // Many asks to Sam in one file: caps out of the way.
      defaults: { max_open_asks_per_expert: 1000, max_asks_per_expert_per_day: 1000 },
    }),
  );
  const { log } = captureLogger();
  server = await startServer({
    configPath: join(dir, 'service.yaml'),
    env: { SERVICE_API_TOKEN: ADMIN, RILEY: REVIEWER, AGENT: CONSUMER },
    logger: log,
    port: 0,
    out: { write: () => true } as never,
    mcpProgressEveryMs: 100,
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(token = ADMIN, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function api(method: string, path: string, body?: unknown, token = ADMIN): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const structured = (r: CallToolResult) => r.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

let n = 0;
/** A fresh question each time, so dedup does not join tests together. */
const ask = (extra: Record<string, unknown> = {}) => ({ topic: 'deployments', question: `How do I roll back release ${++n}?`, asked_because: 'the deploy failed', target_experts: ['sam'], ...extra });

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists the tools with input and output schemas and annotations', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['accept_proposal', 'ask_expert', 'cancel_request', 'get_request', 'list_experts', 'list_pending', 'list_topics', 'reject_proposal', 'return_proposal', 'search_answers', 'wait_for_answer'],
    );
    for (const tool of tools) expect(tool.outputSchema, tool.name).toBeDefined();
    expect(tools.find((t) => t.name === 'get_request')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'accept_proposal')!.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    await client.close();
  });

  it('ask → reply → accept: ask_expert answers at once and wait_for_answer returns the accepted proposal', async () => {
    const client = await connect();
    const asked = await call(client, 'ask_expert', ask());
    expect(asked.isError).toBeFalsy();
    const { request_id } = structured(asked);
    expect(structured(asked)).toMatchObject({ status: 'queued', request_status: 'asked', next_check_after_s: expect.any(Number) });
    expect(textOf(asked)).toMatch(/call wait_for_answer with request_id ".+"/);
    expect(textOf(asked)).toMatch(/Do not call ask_expert again/);

    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'helm rollback api 41', request_id });
    await api('POST', `/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rev' });
    const waited = await call(client, 'wait_for_answer', { request_id, timeout_s: 5 });
    expect(structured(waited)).toMatchObject({ request_id, status: 'accepted', done: true, proposal: { answer: 'helm rollback api 41', status: 'accepted' } });
    expect(textOf(waited)).toMatch(/Accepted answer from Sam Okafor \(human-reviewed\): helm rollback api 41/);
    await client.close();
  });

  it('wait_for_answer returns within 0.5 s of an accept made elsewhere', async () => {
    const client = await connect();
    const { request_id } = structured(await call(client, 'ask_expert', ask()));
    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'Yes.', request_id });
    const waiting = call(client, 'wait_for_answer', { request_id, timeout_s: 30 });
    // Let the call reach the server and start waiting.
    await new Promise((resolve) => setImmediate(resolve));
    await api('GET', `/requests/${request_id}`);
    const acceptedAt = performance.now();
    await api('POST', `/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rev' });
    const result = await waiting;
    expect(performance.now() - acceptedAt).toBeLessThan(500);
    expect(structured(result)).toMatchObject({ status: 'accepted', done: true });
    await client.close();
  });

  it('at the timeout returns the current state: not done, who was asked, when to check again', async () => {
    const client = await connect();
    const { request_id } = structured(await call(client, 'ask_expert', ask()));
    const result = await call(client, 'wait_for_answer', { request_id, timeout_s: 1 });
    expect(structured(result)).toMatchObject({ request_id, status: 'asked', done: false, asked: [{ expert_name: 'Sam Okafor', sent_at: expect.any(String) }], next_check_after_s: expect.any(Number) });
    expect(textOf(result)).toMatch(/Not decided yet \(status asked\)\. Asked Sam Okafor just now.*Gives up at/);
    await client.close();
  });

  it('a retried ask_expert attaches to the open request instead of asking again', async () => {
    const client = await connect();
    const args = ask();
    const first = structured(await call(client, 'ask_expert', args));
    const again = structured(await call(client, 'ask_expert', args));
    expect(again).toMatchObject({ request_id: first.request_id, status: 'deduped_open' });
    const request = await api('GET', `/requests/${first.request_id}`);
    expect(request.body.asks).toHaveLength(1);
    await client.close();
  });

  it('sends progress notifications with a readable message while waiting', async () => {
    const client = await connect();
    const { request_id } = structured(await call(client, 'ask_expert', ask()));
    const progress: Array<{ progress: number; message?: string }> = [];
    await client.callTool({ name: 'wait_for_answer', arguments: { request_id, timeout_s: 1 } }, undefined, { onprogress: (p) => progress.push(p) });
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(new Set(progress.map((p) => p.progress)).size).toBe(progress.length);
    // It gives up a day later: the time carries its date.
    expect(progress[0]!.message).toMatch(/^Asked Sam Okafor just now\. Gives up at \w{3} \d{1,2} \w{3} \d\d:\d\d UTC if nobody has answered\.$/);
    await client.close();
  });

  it('every other tool: get, cancel, experts, pending, reject, send back; errors come back as isError with the code', async () => {
    const client = await connect(ADMIN, 'claude-code');
    const { request_id } = structured(await call(client, 'ask_expert', ask()));
    expect(structured(await call(client, 'get_request', { request_id }))).toMatchObject({ id: request_id, status: 'asked' });
    expect(structured(await call(client, 'list_experts')).experts.map((e: { id: string }) => e.id)).toEqual(['dana', 'lee', 'sam']);

    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'Maybe.', request_id });
    const pending = structured(await call(client, 'list_pending')).items as Array<{ proposal: { id: string } }>;
    expect(pending.map((i) => i.proposal.id)).toContain(reply.body.proposal_id);
    const back = await call(client, 'return_proposal', { proposal_id: reply.body.proposal_id, instructions: 'Which release number?' });
    expect(structured(back)).toMatchObject({ status: 'rejected', decision: { reason: 'returned', decided_by: 'mcp:claude-code' } });
    const second = await api('POST', '/replies', { expert_id: 'sam', text: 'Release 41.', request_id });
    const rejected = await call(client, 'reject_proposal', { proposal_id: second.body.proposal_id, reason: 'Outdated.' });
    expect(structured(rejected)).toMatchObject({ status: 'rejected', decision: { reason: 'Outdated.', decided_by: 'mcp:claude-code' } });

    const other = structured(await call(client, 'ask_expert', ask()));
    expect(structured(await call(client, 'cancel_request', { request_id: other.request_id }))).toMatchObject({ status: 'failed', reason: { code: 'cancelled' } });

    const missing = await call(client, 'get_request', { request_id: 'req_nope' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^not_found: Request "req_nope" does not exist\./);
    const self = await api('POST', '/replies', { expert_id: 'sam', text: 'x', request_id: structured(await call(client, 'ask_expert', ask())).request_id });
    const own = await call(client, 'accept_proposal', { proposal_id: self.body.proposal_id, decided_by: 'sam' });
    expect(textOf(own)).toMatch(/^conflict: Sam Okafor answered this proposal/);
    await client.close();
  });

  it('lists only the tools a token may use: a consumer asks and reads, a reviewer reads and decides', async () => {
    const agent = await connect(CONSUMER);
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_expert', 'cancel_request', 'get_request', 'list_topics', 'search_answers', 'wait_for_answer']);
    await agent.close();
    const reviewer = await connect(REVIEWER);
    expect((await reviewer.listTools()).tools.map((t) => t.name).sort()).toEqual(
      ['accept_proposal', 'get_request', 'list_experts', 'list_pending', 'list_topics', 'reject_proposal', 'return_proposal', 'search_answers', 'wait_for_answer'],
    );
    await reviewer.close();
  });

  it('search_answers finds library entries best match first, read-only, and says so when nothing matches', async () => {
    await api('POST', '/answers', { topic: 'deployments', question: 'How do I roll back a canary release?', answer: 'Run deploy rollback --canary.', expert_id: 'sam' });
    await api('POST', '/answers', { topic: 'deployments', question: 'Who approves a release freeze?', answer: 'The release manager.', expert_id: 'sam' });
    const agent = await connect(CONSUMER);
    expect((await agent.listTools()).tools.find((t) => t.name === 'search_answers')!.annotations).toMatchObject({ readOnlyHint: true });
    const found = await call(agent, 'search_answers', { query: 'roll back canary', topic: 'Deployments', limit: 5 });
    expect(found.isError).toBeFalsy();
    expect(structured(found).items[0]).toMatchObject({ question: 'How do I roll back a canary release?', expert_name: 'Sam Okafor', status: 'active' });
    expect(textOf(found)).toMatch(/^ans_\S+ \(active, deployments, Sam Okafor, verified \d{4}-\d\d-\d\d\): Q: How do I roll back a canary release\? A: Run deploy rollback --canary\./);
    const none = await call(agent, 'search_answers', { query: 'zebra crossing' });
    expect(textOf(none)).toBe('No answers match "zebra crossing".');
    await agent.close();
  });

  it('a consumer-token agent asks, waits and gets the accepted answer without any other route', async () => {
    const agent = await connect(CONSUMER);
    const { request_id } = structured(await call(agent, 'ask_expert', ask()));
    const open = await call(agent, 'wait_for_answer', { request_id, timeout_s: 1 });
    expect(open.isError, textOf(open)).toBeFalsy();
    expect(structured(open)).toMatchObject({ done: false, status: 'asked', asked: [{ expert_name: 'Sam Okafor' }] });
    expect(textOf(open)).toMatch(/Asked Sam Okafor just now\..*Gives up at /);

    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'Run deploy --rollback.', request_id });
    await api('POST', `/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'Riley' });
    const done = await call(agent, 'wait_for_answer', { request_id, timeout_s: 5 });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(structured(done)).toMatchObject({ done: true, status: 'accepted', proposal: { answer: 'Run deploy --rollback.', provenance: { expert_name: 'Sam Okafor' } } });
    expect(textOf(done)).toBe('Accepted answer from Sam Okafor (human-reviewed): Run deploy --rollback.');
    await agent.close();
  });

  it('list_topics tells an agent which topics experts take; the server reports the package version', async () => {
    const agent = await connect(CONSUMER);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(agent.getServerVersion()).toMatchObject({ name: 'expertq', version });
    const listed = await call(agent, 'list_topics');
    expect(structured(listed).topics).toContainEqual({ topic: 'billing', experts: 2, available_now: 2, fallback: null });
    expect(textOf(listed)).toMatch(/^billing: 2 experts, 2 available now$/m);
    await agent.close();
  });

  it('applies token roles: a reviewer decides under its name', async () => {
    const agent = await connect(CONSUMER);
    const { request_id } = structured(await call(agent, 'ask_expert', ask()));
    expect((await api('GET', `/requests/${request_id}`)).body.consumer_id).toBe('agent-bot');
    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'Yes.', request_id });
    await agent.close();

    const reviewer = await connect(REVIEWER);
    const accepted = await call(reviewer, 'accept_proposal', { proposal_id: reply.body.proposal_id, decided_by: 'someone else' });
    expect(structured(accepted).decision.decided_by).toBe('Riley');
    await reviewer.close();
  });

  it('answers 401 in the SPEC shape without the token, and 403 for a foreign Host header', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });

    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/mcp`, {
        method: 'POST',
        headers: { host: 'evil.example', authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      }, (r) => {
        r.resume();
        resolve(r.statusCode!);
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(status).toBe(403);
  });

  it('ask_expert says when the answer library answered at once: request_status proposed, waiting for a reviewer', async () => {
    await api('POST', '/answers', { topic: 'billing', question: 'Which currency do our invoices use?', answer: 'Euros.', expert_id: 'dana' });
    const agent = await connect(CONSUMER);
    const asked = await call(agent, 'ask_expert', { topic: 'billing', question: 'Which currency do invoices use?', asked_because: 'a customer asks' });
    expect(structured(asked)).toMatchObject({ status: 'queued', request_status: 'proposed' });
    expect(textOf(asked)).toMatch(/answered from the answer library; a reviewer must accept it/);
    expect(textOf(asked)).toMatch(/call wait_for_answer with request_id/);
    await agent.close();
  });

  it('still works with a client speaking an older protocol version (2024-11-05)', async () => {
    let session: string | null = null;
    const post = async (body: unknown) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
      session ??= res.headers.get('mcp-session-id');
      const text = await res.text();
      if (!text) return null;
      const data = text.split('\n').find((l) => l.startsWith('data: '));
      return JSON.parse(data ? data.slice(6) : text);
    };
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old-agent', version: '0.1' } } });
    expect(init.result.protocolVersion).toBe('2024-11-05');
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('ask_expert');
    const asked = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask_expert', arguments: ask() } });
    expect(asked.result.structuredContent.status).toBe('queued');
  });
});
