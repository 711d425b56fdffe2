import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, CLI_TEST_TIMEOUT_MS, makeWorkspace, serveWorkspace, TEST_TOKEN, type ServerProcess, type Workspace } from '../support/cli.js';

const AGENT_TOKEN = 'stdio-agent-token';

/** `expertq mcp` over stdio, as an MCP client starts it, against a running `expertq serve`. */
describe('MCP over stdio (expertq mcp)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let ws: Workspace;
  let server: ServerProcess;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.setIn(['server', 'tokens'], [{ name: 'stdio-agent', token_env: 'AGENT_TOKEN', role: 'consumer' }]);
    writeFileSync(ws.configFile, doc.toString());
    writeFileSync(join(ws.dir, '.env'), `AGENT_TOKEN=${AGENT_TOKEN}\n`);
    server = await serveWorkspace(ws);
  });
  afterAll(async () => {
    await server?.stop();
    ws?.remove();
  });

  async function connect(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', ws.configFile], env: cleanEnv(env) as Record<string, string>, stderr: 'pipe' });
    let err = '';
    transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    return { client, stderr: () => err };
  }
  const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured results are read loosely
  const structured = (r: CallToolResult) => r.structuredContent as Record<string, any>;

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as Record<string, string>;
  }

  it('asks, and after the reply and an accept, wait_for_answer returns the accepted answer; logs stay off stdout', async () => {
    const { client, stderr } = await connect({ SERVICE_API_TOKEN: TEST_TOKEN });
    const asked = await call(client, 'ask_expert', { topic: 'kubernetes', question: 'Which namespace runs billing?', asked_because: 'the pod is missing', target_experts: ['sam'] });
    const { request_id } = structured(asked);
    expect(structured(asked).status).toBe('queued');
    const early = await call(client, 'wait_for_answer', { request_id, timeout_s: 1 });
    expect(structured(early)).toMatchObject({ done: false, status: 'asked' });

    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'billing-prod.', request_id });
    await call(client, 'accept_proposal', { proposal_id: reply.proposal_id!, decided_by: 'rev' });
    const done = await call(client, 'wait_for_answer', { request_id, timeout_s: 10 });
    expect(structured(done)).toMatchObject({ done: true, status: 'accepted', proposal: { answer: 'billing-prod.' } });
    expect(stderr()).toMatch(/expertq mcp: MCP on stdio, calling http:\/\/127\.0\.0\.1:\d+/);

    const missing = await call(client, 'get_request', { request_id: 'req_missing' });
    expect(missing.isError).toBe(true);
    expect((missing.content[0] as { text: string }).text).toMatch(/^not_found: /);
    await client.close();
  });

  it('with a consumer token (EXPERTQ_TOKEN) the agent sees only its tools, asks, waits and gets the accepted answer', async () => {
    const { client } = await connect({ EXPERTQ_TOKEN: AGENT_TOKEN });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_expert', 'cancel_request', 'get_request', 'list_topics', 'search_answers', 'wait_for_answer']);
    const { request_id } = structured(await call(client, 'ask_expert', { topic: 'kubernetes', question: 'Who owns the ingress?', asked_because: 'a 502', target_experts: ['sam'] }));
    expect((await api('GET', `/requests/${request_id}`)).consumer_id).toBe('stdio-agent');
    const open = await call(client, 'wait_for_answer', { request_id, timeout_s: 1 });
    expect(open.isError, JSON.stringify(open.content)).toBeFalsy();
    expect(structured(open)).toMatchObject({ done: false, asked: [{ expert_name: 'Sam Okafor' }] });
    const reply = await api('POST', '/replies', { expert_id: 'sam', text: 'Platform team.', request_id });
    await api('POST', `/proposals/${reply.proposal_id}/accept`, { decided_by: 'rev' });
    const done = await call(client, 'wait_for_answer', { request_id, timeout_s: 10 });
    expect(done.isError, JSON.stringify(done.content)).toBeFalsy();
    expect(structured(done)).toMatchObject({ done: true, status: 'accepted', proposal: { answer: 'Platform team.' } });
    // The accepted answer is in the library: the next agent finds it before asking anyone.
    const found = await call(client, 'search_answers', { query: 'who owns ingress' });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect(structured(found).items).toMatchObject([{ question: 'Who owns the ingress?', answer: 'Platform team.', expert_name: 'Sam Okafor', status: 'active' }]);
    await client.close();
  });
});
