import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/create-mcp-server.js';
import { serviceBackend } from '../../src/mcp/service-backend.js';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
let client: Client;

beforeAll(async () => {
  t = await buildTestApp();
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(serviceBackend(t.service, { name: null, role: 'admin' })).connect(serverSide);
  client = new Client({ name: 'id-limits', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('MCP tools take the same ids as the HTTP API', () => {
  // 150 characters: over the tools' old limit of 100, within the API's 200.
  const id = `req_${'x'.repeat(146)}`;

  it('an id the API accepts is looked up by the tools too, and answered not_found like the API', async () => {
    const api = await t.call('GET', `/api/v1/requests/${id}`);
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('not_found');
    for (const [tool, args] of [
      ['get_request', { request_id: id }],
      ['cancel_request', { request_id: id }],
      ['wait_for_answer', { request_id: id, timeout_s: 1 }],
      ['accept_proposal', { proposal_id: id }],
      ['reject_proposal', { proposal_id: id, reason: 'Outdated.' }],
      ['return_proposal', { proposal_id: id, instructions: 'Which release?' }],
    ] as const) {
      const result = await call(tool, args);
      expect(result.isError, tool).toBe(true);
      expect(textOf(result), tool).toMatch(/^not_found: /);
    }
  });

  it('an id longer than the API takes is refused by both', async () => {
    const tooLong = `req_${'x'.repeat(197)}`;
    expect((await t.call('GET', `/api/v1/requests/${tooLong}`)).status).toBe(400);
    const result = await call('get_request', { request_id: tooLong });
    expect(result.isError).toBe(true);
    expect(textOf(result)).not.toMatch(/^not_found/);
  });
});
