import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';
import { createService, type Expertq } from '../../src/index.js';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody, type TestApp } from '../support/build-test-app.js';
import { Capture, captureLogger } from '../support/capture.js';
import { FakeClock } from '../support/fake-clock.js';
import { FakeLlm } from '../support/fake-llm.js';

let fake: FakeLlm;
let dir: string;
const open: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  fake = new FakeLlm();
  await fake.start();
  dir = mkdtempSync(join(tmpdir(), 'expertq-llm-config-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(llm: Record<string, unknown> | undefined): string {
  const file = join(dir, 'service.yaml');
  writeFileSync(file, stringify({ org: { name: 'Acme' }, experts: EXAMPLE_EXPERTS, ...(llm ? { llm } : {}) }));
  return file;
}

async function start(llm: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = {}) {
  const { log, logs } = captureLogger();
  const expertq: Expertq = await createService({ config: writeConfig(llm), out: new Capture(), logger: log, clock: new FakeClock(), timers: false, env });
  open.push(expertq);
  return { expertq, logs };
}

describe('llm configuration', () => {
  it('defaults llm.timeout to 30s and llm.concurrency to 4', () => {
    expect(parseConfig('org: {name: A}\nllm: {model: m, api_key_env: OPENAI_API_KEY}\n', '/x/service.yaml').llm).toEqual({
      model: 'm',
      api_key_env: 'OPENAI_API_KEY',
      timeout: 30_000,
      concurrency: 4,
    });
  });

  it.each([
    ['llm: {model: m}\n', 'llm.api_key_env:', 'is required with llm.model unless llm.base_url'],
    ['llm: {model: m, base_url: "http://x", timeout: soon}\n', 'llm.timeout:', '"soon" is not a duration'],
    ['llm: {model: m, base_url: "not a url"}\n', 'llm.base_url:', ''],
    ['llm: {model: m, base_url: "http://x", concurrency: 0}\n', 'llm.concurrency:', ''],
  ])('names the key and the problem: %s', (yaml, path, problem) => {
    let message = '';
    try {
      parseConfig(`org: {name: A}\n${yaml}`, '/x/service.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toContain(path);
    expect(message).toContain(problem);
  });

  it('refuses to start with llm.model set and its key variable unset, naming the variable', async () => {
    await expect(start({ model: 'gpt-4o-mini', api_key_env: 'ACME_LLM_KEY' })).rejects.toThrow(ConfigError);
    await expect(start({ model: 'gpt-4o-mini', api_key_env: 'ACME_LLM_KEY' })).rejects.toThrow(/ACME_LLM_KEY, which is not set/);
  });

  it('logs the model and endpoint once at start-up, sends the key as a bearer token, and never logs it', async () => {
    const key = 'sk-test-9d2f7c1e5b';
    const { expertq, logs } = await start({ model: 'fake-model-1', base_url: fake.url, api_key_env: 'ACME_LLM_KEY' }, { ACME_LLM_KEY: key });
    const on = logs.lines.filter((l) => l.msg === 'LLM drafting and structuring on');
    expect(on).toHaveLength(1);
    expect(on[0]).toMatchObject({ model: 'fake-model-1', base_url: fake.url, timeout_ms: 30_000, key: 'from ACME_LLM_KEY' });

    await expertq.submitRequest(submitBody() as never);
    await expertq.service.idle();
    expect(fake.calls[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(logs.text).not.toContain(key);
  });

  it('a local endpoint needs no key variable', async () => {
    const { expertq } = await start({ model: 'llama3.2', base_url: fake.url });
    await expertq.submitRequest(submitBody() as never);
    await expertq.service.idle();
    expect(fake.calls.map((c) => c.name)).toEqual(['drafted_question']);
  });
});

describe('without an LLM', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it.each([
    ['no llm section', false],
    ['an llm section without llm.model', true],
  ])('%s: raw question, verbatim {text} proposal with confidence null, no provenance.llm, no LLM call', async (_what, llm) => {
    // The section may point at a live endpoint: without a model nothing is sent to it.
    t = await buildTestApp({ config: llm ? { llm: { base_url: fake.url } } : {} });
    const { request_id } = (await t.call('POST', '/api/v1/requests', submitBody())).body;
    expect(t.messages()[0]).toContain('Question: What is the grace period for disputed invoices?');
    expect((await t.call('GET', `/api/v1/requests/${request_id}`)).body.asked_question).toBe('What is the grace period for disputed invoices?');

    const reply = (await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' })).body;
    const proposal = (await t.call('GET', `/api/v1/proposals/${reply.proposal_id}`)).body;
    expect(proposal).toMatchObject({ structured: { text: 'Thirty days.' }, confidence: null });
    expect(proposal.provenance).not.toHaveProperty('llm');
    const types = (await t.call('GET', `/api/v1/audit?request_id=${request_id}`)).body.map((e: { type: string }) => e.type);
    expect(types).toEqual(['received', 'routed', 'asked', 'replied', 'proposed']);
    expect(fake.calls).toEqual([]);
    expect(t.service.llmWorker).toBeNull();
    if (llm) expect(t.logs.text).toContain('the llm section has no llm.model');
  });
});
