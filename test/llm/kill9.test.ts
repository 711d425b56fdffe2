import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { childConfig } from '../support/child-config.js';
import { cleanEnv, runCli, TEST_TOKEN } from '../support/cli.js';
import { FakeLlm, fakeDraft } from '../support/fake-llm.js';
import { ServerChild } from '../support/server-child.js';
import { until } from '../support/until.js';

/**
 * Drafting and structuring survive `kill -9` (SPEC §13: pending work is durable and resumes): the real
 * server as a child process is killed while each call is in flight, restarted on the same database,
 * and finishes the work, with the drafted question on the ask and a structured proposal.
 */

const RAW = String(submitBody().question);
const DRAFTED = fakeDraft({ question: RAW });
const WAIT_MS = 20_000;

let dir: string;
let configFile: string;
let base: string;
let server: ServerChild;
let fake: FakeLlm;

beforeAll(async () => {
  fake = new FakeLlm();
  await fake.start();
  ({ dir, configFile, base } = await childConfig('expertq-llm-kill-', {
    // A short work lease: the restarted server takes up the killed one's LLM job 2 s after the kill.
    server: { work_lease: '2s' },
    // Long enough that no deadline falls back while the server is down: the work itself must resume.
    llm: { model: 'fake-model-1', base_url: fake.url, timeout: '60s' },
    experts: EXAMPLE_EXPERTS,
  }));
  server = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }));
});

afterAll(async () => {
  await server?.kill9();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('LLM work across kill -9', () => {
  it('a draft and a structuring killed mid-call both resume after restart', async () => {
    // 1. The draft call is in flight when the server dies.
    fake.on('drafted_question', { hang: true });
    await server.start();
    const submitted = await api('POST', '/requests', submitBody());
    expect(submitted.body.status).toBe('queued');
    const id: string = submitted.body.request_id;
    await fake.waitForCalls('drafted_question', 1);
    await server.kill9();

    // 2. Restarted, the pending draft runs again and the ask goes out with it.
    fake.reset();
    await server.start();
    await until(async () => (await api('GET', `/requests/${id}`)).body.status === 'asked', WAIT_MS, 'the request is asked', () => server.diagnostics());
    expect((await api('GET', `/requests/${id}`)).body).toMatchObject({ question: RAW, asked_question: DRAFTED });
    expect(fake.callsOf('drafted_question')).toHaveLength(2);
    const shown = await runCli(['--config', configFile, 'request', id], { cwd: dir });
    expect(shown.stdout).toContain(`Question: ${RAW}`);
    expect(shown.stdout).toContain(`Asked as: ${DRAFTED}`);

    // 3. The structuring call is in flight when the server dies: the reply is already committed.
    fake.on('structured_answer', { hang: true });
    const reply = await api('POST', '/replies', { expert_id: 'dana', text: 'Thirty days from the invoice date.' });
    expect(reply.body).toMatchObject({ request_id: id, outcome: 'proposed' });
    const proposalId: string = reply.body.proposal_id;
    await fake.waitForCalls('structured_answer', 1);
    expect((await api('GET', `/proposals/${proposalId}`)).status).toBe(404);
    await server.kill9();

    // 4. Restarted, the structuring resumes and the proposal appears, once.
    fake.reset();
    await server.start();
    await until(async () => (await api('GET', `/proposals/${proposalId}`)).status === 200, WAIT_MS, 'the proposal exists', () => server.diagnostics());
    expect((await api('GET', `/proposals/${proposalId}`)).body).toMatchObject({
      status: 'pending',
      answer: 'Thirty days from the invoice date.',
      structured: { summary: 'Thirty days from the invoice date.', facts: ['Thirty days from the invoice date.'] },
      confidence: 0.9,
      provenance: { llm: { model: 'fake-model-1', drafted: true, structured: true } },
    });
    const trail = (await api('GET', `/audit?request_id=${id}`)).body.map((e: { type: string }) => e.type);
    expect(trail.filter((t: string) => t === 'proposed')).toHaveLength(1);
    expect(trail.filter((t: string) => t === 'llm_fallback')).toHaveLength(0);
    const queue = await runCli(['--config', configFile, 'queue'], { cwd: dir });
    expect(queue.stdout).toContain(`Asked as: ${DRAFTED}`);
    expect(queue.stdout).toContain('Structured (confidence 0.9): {"summary":"Thirty days from the invoice date."');
    expect(server.errors).toEqual([]);
  }, 90_000);
});
