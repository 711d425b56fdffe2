import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_EXPERTS } from '../support/build-test-app.js';
import { TEST_TOKEN } from '../support/cli.js';
import { InstancePool } from '../support/instance-pool.js';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';

const DB_NAME = `eq_mcp_across_${process.pid}`;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('MCP with two instances on one PostgreSQL database', () => {
  it('wait_for_answer on one instance returns within 1 s of an accept made on the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-mcp-across-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const url = await createTestDatabase(DB_NAME);
    cleanups.push(() => dropTestDatabase(DB_NAME));
    const configFile = join(dir, 'service.yaml');
    writeFileSync(configFile, stringify({ org: { name: 'Acme', timezone: 'UTC' }, storage: { url_env: 'EXPERTQ_DB' }, experts: EXAMPLE_EXPERTS }));
    const pool = await InstancePool.start(configFile, 2, { EXPERTQ_DB: url });
    cleanups.push(() => pool.killAll());

    // The server answers a tool call's HTTP request with its event stream's headers once the call is
    // running: from then on the wait is under way on instance 0.
    let waitRunning!: () => void;
    const running = new Promise<void>((resolve) => (waitRunning = resolve));
    const watchingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"wait_for_answer"')) waitRunning();
      return response;
    };
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${pool.bases[0]}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_TOKEN}` } }, fetch: watchingFetch }),
    );
    cleanups.push(() => client.close());
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

    const asked = await call('ask_expert', { topic: 'deployments', question: 'How do I roll back release 41?', asked_because: 'the deploy failed', target_experts: ['sam'] });
    const { request_id } = asked.structuredContent as { request_id: string };
    const reply = await pool.ok(1, 'POST', '/replies', { expert_id: 'sam', text: 'helm rollback api 41', request_id });
    const waiting = call('wait_for_answer', { request_id, timeout_s: 30 });
    await running;
    const acceptedAt = performance.now();
    await pool.ok(1, 'POST', `/proposals/${reply.proposal_id}/accept`, { decided_by: 'rev' });
    const result = await waiting;
    expect(performance.now() - acceptedAt).toBeLessThan(1_000);
    expect(result.structuredContent).toMatchObject({ request_id, status: 'accepted', done: true, proposal: { answer: 'helm rollback api 41' } });
  });
});
