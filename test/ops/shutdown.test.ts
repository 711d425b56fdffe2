import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startServer } from '../../src/server.js';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody, type TestApp } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';
import { cleanEnv, freePort, TEST_TOKEN } from '../support/cli.js';
import { ServerChild } from '../support/server-child.js';
import { until } from '../support/until.js';

/**
 * A restart does not wait for agents: on SIGTERM the server ends every long poll and queue stream at
 * once with the current state, answers what arrives meanwhile with 503 in the error shape, releases the
 * database and exits within 5 s, so the next `serve` starts at once.
 */

const SHUTDOWN_BUDGET_MS = 5_000;

describe('SIGTERM with a long poll and a queue stream open', () => {
  let dir: string;
  let server: ServerChild;
  let next: ServerChild | undefined;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-shutdown-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api/v1`;
    const configFile = join(dir, 'service.yaml');
    writeFileSync(
      configFile,
      stringify({
        org: { name: 'Acme', timezone: 'UTC' },
        server: { port, host: '127.0.0.1' },
        storage: { path: join(dir, 'expertq.db') },
        experts: EXAMPLE_EXPERTS,
      }),
    );
    server = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, LOG_LEVEL: 'debug' }));
    next = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }));
  });

  afterAll(async () => {
    await server?.kill9();
    await next?.kill9();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the poll with the open record, ends the stream, exits within 5 s, and a new server starts on the database', async () => {
    await server.start();
    const headers = { authorization: `Bearer ${TEST_TOKEN}` };
    const submitted = await fetch(`${base}/requests`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(submitBody()),
    });
    const { request_id: id } = (await submitted.json()) as { request_id: string };

    const stream = await fetch(`${base}/queue/events`, { headers });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the first frame: the stream is open
    const streamEnded = (async () => {
      while (!(await reader.read()).done);
      return true;
    })();

    const poll = fetch(`${base}/requests/${id}/wait?timeout_s=50`, { headers });
    // The server logs (at debug) when a long poll starts waiting: SIGTERM must come after that.
    await until(() => server.diagnostics().includes('"msg":"long poll opened"'), 20_000, 'the long poll waits', () => server.diagnostics());

    const started = Date.now();
    const exit = server.stop(20_000);
    const polled = await poll;
    expect(polled.status).toBe(200);
    expect(await polled.json()).toMatchObject({ id, status: 'asked' });
    expect(await streamEnded).toBe(true);
    await exit;
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_BUDGET_MS);
    expect(server.errors).toEqual([]);

    // The database was released: the next server starts on it at once.
    await next!.start();
    const again = await fetch(`${base}/requests/${id}`, { headers });
    expect(again.status).toBe(200);
  }, 60_000);
});

describe('while the server shuts down', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('answers new requests 503 in the error shape with Retry-After', async () => {
    t = await buildTestApp();
    t.service.shutdown();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/requests' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.json()).toEqual({ error: { code: 'unavailable', message: 'The server is shutting down; try again in a moment.' } });
  });

  it('ends a wait for a decision at once with the request as it is', async () => {
    t = await buildTestApp();
    const { body } = await t.call('POST', '/api/v1/requests', submitBody());
    const waiting = t.service.waitForDecision(body.request_id, 50_000);
    t.service.shutdown();
    expect(await waiting).toMatchObject({ id: body.request_id, status: 'asked' });
    // A wait that starts after shutdown began does not wait either.
    expect(await t.service.waitForDecision(body.request_id, 50_000)).toMatchObject({ status: 'asked' });
  });
});

describe('an agent waiting over MCP when the server stops', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is told at once that the request is not decided yet and to call again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-shutdown-mcp-'));
    writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, experts: EXAMPLE_EXPERTS }));
    const { log } = captureLogger();
    const server = await startServer({ configPath: join(dir, 'service.yaml'), env: { SERVICE_API_TOKEN: TEST_TOKEN }, logger: log, port: 0, out: { write: () => true } as never });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_TOKEN}` } } }));
    const asked = (await client.callTool({ name: 'ask_expert', arguments: { topic: 'billing', question: 'Grace period?', asked_because: 'the ledger differs' } })) as CallToolResult;
    const id = (asked.structuredContent as { request_id: string }).request_id;

    // The wait has started once it listens to the change feed.
    const feed = server.service.changes;
    const listening = new Promise<void>((resolve) => {
      const subscribe = feed.subscribe.bind(feed);
      feed.subscribe = (listener) => (resolve(), subscribe(listener));
    });
    const waiting = client.callTool({ name: 'wait_for_answer', arguments: { request_id: id, timeout_s: 50 } }) as Promise<CallToolResult>;
    await listening;
    const started = Date.now();
    const closed = server.close();
    const result = await waiting;
    expect((result.content[0] as { text: string }).text).toMatch(new RegExp(`^Not decided yet \\(status asked\\)\\..*Call wait_for_answer again with request_id "${id}"`, 's'));
    expect(result.structuredContent).toMatchObject({ done: false });
    await closed;
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_BUDGET_MS);
    await client.close();
  });
});
