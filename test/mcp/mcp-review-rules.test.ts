import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { EXAMPLE_EXPERTS } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';

/** The MCP review tools over HTTP under a two-person rule for security: each token is its own reviewer. */

const ADMIN = 'mcp-rules-admin';
const SEC_1 = 'mcp-rules-sec-one';
const SEC_2 = 'mcp-rules-sec-two';
const BILLING = 'mcp-rules-billing';

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-mcp-rules-'));
  writeFileSync(
    join(dir, 'service.yaml'),
    stringify({
      org: { name: 'Acme' },
      server: {
        tokens: [
          { name: 'Sec One', token_env: 'SEC_1', role: 'reviewer' },
          { name: 'Sec Two', token_env: 'SEC_2', role: 'reviewer' },
          { name: 'Bill Reviewer', token_env: 'BILLING', role: 'reviewer' },
        ],
      },
      experts: EXAMPLE_EXPERTS,
      review: { rules: [{ name: 'security', match: { topics: ['security'] }, reviewers: ['token:Sec One', 'token:Sec Two'], approvals: 2 }] },
    }),
  );
  const { log } = captureLogger();
  server = await startServer({
    configPath: join(dir, 'service.yaml'),
    env: { SERVICE_API_TOKEN: ADMIN, SEC_1, SEC_2, BILLING },
    logger: log,
    port: 0,
    out: { write: () => true } as never,
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'review-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const structured = (r: CallToolResult) => r.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const pendingIds = async (client: Client, args: Record<string, unknown> = {}) =>
  (structured(await call(client, 'list_pending', args)).items as Array<{ proposal: { id: string } }>).map((i) => i.proposal.id);

let n = 0;
/** A pending proposal on a fresh question of this topic, answered by Sam or Dana. */
async function proposed(topic: 'security' | 'billing'): Promise<string> {
  const expert = topic === 'security' ? 'sam' : 'dana';
  const submitted = await api('POST', '/requests', { consumer_id: 'billing-bot', topic, question: `Question ${++n} about ${topic}?`, context: { asked_because: 'testing' }, target_experts: [expert] });
  const reply = await api('POST', '/replies', { expert_id: expert, text: 'Yes, every 90 days.', request_id: submitted.body.request_id });
  expect(reply.body.proposal_id).toBeTruthy();
  return reply.body.proposal_id as string;
}

describe('MCP review tools under a two-person rule', () => {
  it('the first accept_proposal records a vote ("1 of 2"), list_pending shows the votes; the second reviewer’s accept decides it', async () => {
    const proposalId = await proposed('security');
    const one = await connect(SEC_1);
    const two = await connect(SEC_2);

    const first = await call(one, 'accept_proposal', { proposal_id: proposalId });
    expect(first.isError).toBeFalsy();
    expect(structured(first)).toMatchObject({ status: 'pending', approvals_needed: 2, votes: [{ by: 'Sec One', decision: 'accept' }], message: 'Approval recorded: 1 of 2, waiting for a second reviewer.' });
    expect(textOf(first)).toBe(`${proposalId} is still pending: Approval recorded: 1 of 2, waiting for a second reviewer.`);

    const listed = await call(two, 'list_pending');
    const item = (structured(listed).items as Array<{ proposal: Record<string, unknown> }>).find((i) => i.proposal.id === proposalId)!;
    expect(item.proposal).toMatchObject({ approvals_needed: 2, votes: [{ by: 'Sec One', decision: 'accept' }] });
    expect(textOf(listed)).toContain(`${proposalId} (votes 1/2: Sec One accepted; may still vote: token:Sec Two)`);
    // mine: what still waits for the caller's own vote.
    expect(await pendingIds(one, { mine: true })).not.toContain(proposalId);
    expect(await pendingIds(two, { mine: true })).toContain(proposalId);

    const second = await call(two, 'accept_proposal', { proposal_id: proposalId });
    expect(structured(second)).toMatchObject({ status: 'accepted', decision: { decided_by: 'Sec Two' }, message: 'Accepted: 2 of 2 approvals under the review rule "security"; it is delivered.' });
    expect((await api('GET', `/proposals/${proposalId}`)).body.status).toBe('accepted');
    await one.close();
    await two.close();
  });

  it('list_pending hides a proposal from a reviewer the rule does not name, and their accept is refused with the rule named', async () => {
    const security = await proposed('security');
    const billing = await proposed('billing');
    const bill = await connect(BILLING);
    const ids = await pendingIds(bill);
    expect(ids).toContain(billing);
    expect(ids).not.toContain(security);
    expect(await pendingIds(await connect(SEC_1))).toContain(security);

    const refused = await call(bill, 'accept_proposal', { proposal_id: security });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'forbidden: This proposal is governed by the review rule "security": only its reviewers may decide it: token:Sec One, token:Sec Two. Bill Reviewer is not one of them; nothing changed.',
    );
    expect((await api('GET', `/proposals/${security}`)).body).toMatchObject({ status: 'pending', votes: [] });
    await bill.close();
  });

  it('the tools tell an agent how votes work', async () => {
    const client = await connect(SEC_1);
    const { tools } = await client.listTools();
    const described = (name: string) => tools.find((t) => t.name === name)!.description!;
    expect(described('list_pending')).toMatch(/only the proposals you may decide/);
    expect(described('accept_proposal')).toMatch(/stays pending until enough/);
    expect(described('reject_proposal')).toMatch(/vote/);
    await client.close();
  });
});
