import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, CLI_TEST_TIMEOUT_MS, startCli } from '../support/cli.js';

/**
 * `expertq ask --wait` and `expertq request` against a scripted server, so the test controls when each state arrives and
 * sees every call the CLI makes. A consumer's token may not read proposals: the CLI must take the
 * answer from the request record's `proposal`.
 */

const proposal = {
  id: 'prop_1', request_id: 'req_w1', status: 'accepted', answer: 'Thirty days from the invoice date.', structured: null, confidence: null,
  provenance: { expert_id: 'dana', expert_name: 'Dana Smith', llm: null }, decision: { decided_by: 'alice', decided_at: '2026-11-24T13:00:00Z', reason: null, note: null },
  original_answer: null, created_at: '2026-11-24T12:59:00Z',
};

function record(status: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'req_w1', consumer_id: 'cli', kind: 'answer', topic: 'billing', question: 'Grace period?', asked_question: 'Grace period?', context: {},
    target_experts: null, dedup_key: null, status, reason: null, asks: [], subscribers: [], proposal_id: null,
    created_at: '2026-11-24T12:58:00Z', updated_at: '2026-11-24T12:58:00Z', ...extra,
  };
}

let server: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A server answering each `/wait` with the next record, the first only once `release()` is called. */
async function scripted(waits: Array<Record<string, unknown>>, shown = record('queued', { asked: [], waiting: null }), args = ['ask', 'Grace period?', '--topic', 'billing', '--because', 'stuck', '--wait']) {
  const calls: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/api/v1/requests') return void send(200, { request_id: 'req_w1', status: 'queued' });
    if (url.startsWith('/api/v1/requests/req_w1/wait')) {
      const next = waits.shift() ?? record('failed', { reason: { code: 'timeout', message: 'script ended' } });
      void (calls.filter((c) => c.includes('/wait')).length === 1 ? released : Promise.resolve()).then(() => send(200, next));
      return;
    }
    if (url === '/api/v1/requests/req_w1') return void send(200, shown);
    if (url === '/api/v1/proposals/prop_1') return void send(200, proposal);
    send(404, { error: { code: 'not_found', message: `No route ${url}` } });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  dir = mkdtempSync(join(tmpdir(), 'expertq-wait-'));
  const cli = startCli(['--url', url, ...args], { cwd: dir, env: cleanEnv({ EXPERTQ_TOKEN: 'consumer-token' }) });
  return { calls, release, cli };
}

describe('expertq ask --wait', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('says at once what it waits for, long-polls, reports each change and prints the answer from the record', async () => {
    const dana = { expert_id: 'dana', expert_name: 'Dana Smith', sent_at: '2026-11-24T12:58:00Z' };
    const held = record('queued', { asked: [], waiting: { why: 'cap' } });
    const { calls, release, cli } = await scripted([
      record('asked', { asked: [dana], waiting: null }),
      record('proposed', { asked: [], waiting: { why: 'review' }, proposal_id: 'prop_1', proposal: { ...proposal, status: 'pending', decision: null } }),
      record('accepted', { asked: [], waiting: null, proposal_id: 'prop_1', proposal }),
    ], held);
    // Printed before the first long poll answers: the request is held, and says so.
    await cli.waitForStdout(/^req_w1 queued: Every expert for this topic is at their limit/m);
    release();
    const result = await cli.result;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      "req_w1 queued: Every expert for this topic is at their limit; the question goes out when one of them answers an open question (waiting for the answer and a reviewer's decision; Ctrl-C stops waiting, the request stays open)",
    );
    expect(lines.slice(1)).toEqual([
      'req_w1 asked: asked Dana Smith',
      'req_w1 proposed: Dana Smith answered, waiting for review',
      'req_w1 accepted',
      'Answer from Dana Smith: Thirty days from the invoice date.',
    ]);
    expect(calls.filter((c) => c.includes('/proposals'))).toEqual([]);
    const waits = calls.filter((c) => c.includes('/wait'));
    expect(waits).toHaveLength(3);
    // Each poll names the record it has, so any change answers at once.
    expect(waits.every((c) => c === 'GET /api/v1/requests/req_w1/wait?timeout_s=45&changed_from=2026-11-24T12%3A58%3A00Z')).toBe(true);
  });

  it('asks for the proposal only when the server does not send it with the record', async () => {
    const { calls, release, cli } = await scripted([record('accepted', { proposal_id: 'prop_1' })]);
    release();
    const result = await cli.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Answer from Dana Smith: Thirty days from the invoice date.');
    expect(calls).toContain('GET /api/v1/proposals/prop_1');
  });
});

describe('expertq request on an open request', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('says why it waits and when it gives up, from the record', async () => {
    const held = record('queued', { asked: [], waiting: { why: 'cap', until: '2099-11-26T00:00:00Z' }, gives_up_at: '2099-11-25T11:37:00Z', proposal: null });
    const { calls, release, cli } = await scripted([], held, ['request', 'req_w1']);
    release();
    const result = await cli.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ {2}Waiting: Every expert for this topic is at their daily limit; the question goes out at 00:00 UTC on Thu 26 Nov 2099, in \d+ days\n/m);
    expect(result.stdout).toContain('  Gives up: Wed 25 Nov 2099 11:37 UTC\n');
    expect(calls.filter((c) => c.includes('/proposals'))).toEqual([]);
  });

  it('prints nothing about waiting when the server does not send it', async () => {
    const { release, cli } = await scripted([], record('queued'), ['request', 'req_w1']);
    release();
    const result = await cli.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(/Waiting|Gives up/);
  });
});

describe('expertq ask --wait across a server restart', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('keeps waiting when the server goes away for a moment, then prints the answer', async () => {
    let waits = 0;
    server = createServer((req, res) => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST') return void send(200, { request_id: 'req_w1', status: 'queued' });
      if (!req.url?.includes('/wait')) return void send(200, record('asked', { asked: [], waiting: null }));
      waits++;
      // The first poll is cut (the server stops), the second answers 503 (shutting down), the third decides.
      if (waits === 1) return void req.socket.destroy();
      if (waits === 2) return void send(503, { error: { code: 'unavailable', message: 'The server is shutting down; try again in a moment.' } });
      send(200, record('accepted', { asked: [], waiting: null, proposal_id: 'prop_1', proposal }));
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    const address = server.address();
    dir = mkdtempSync(join(tmpdir(), 'expertq-wait-'));
    const cli = startCli(['--url', `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, 'ask', 'Grace period?', '--topic', 'billing', '--because', 'stuck', '--wait'], {
      cwd: dir,
      env: cleanEnv({ EXPERTQ_TOKEN: 'consumer-token' }),
    });
    const result = await cli.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The server is not answering (restarting?); still waiting, the request stays open.');
    expect(result.stdout).toContain('Answer from Dana Smith: Thirty days from the invoice date.');
    expect(waits).toBe(3);
  });
});
