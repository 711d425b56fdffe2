import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { EXAMPLE_EXPERTS } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';

/** Transport-level errors at /mcp: what an MCP client gets is a JSON-RPC error, never the REST API's error body. */

const ADMIN = 'mcp-errors-admin';
const OTHER = 'mcp-errors-reviewer';
const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-mcp-errors-'));
  writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, server: { tokens: [{ name: 'Riley', token_env: 'RILEY', role: 'reviewer' }] }, experts: EXAMPLE_EXPERTS }));
  server = await startServer({
    configPath: join(dir, 'service.yaml'),
    env: { SERVICE_API_TOKEN: ADMIN, RILEY: OTHER },
    logger: captureLogger().log,
    port: 0,
    out: { write: () => true } as never,
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sent {
  method?: string;
  body?: string;
  session?: string;
  token?: string;
  contentType?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function send({ method = 'POST', body, session, token = ADMIN, contentType = 'application/json' }: Sent): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${server.url}/mcp`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: ACCEPT, ...(body !== undefined ? { 'content-type': contentType } : {}), ...(session ? { 'mcp-session-id': session } : {}) },
    body,
  });
  const text = await res.text();
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(data ? data.slice(6) : text) : null };
}

const rpcError = (code: number, message: RegExp | string) => ({ jsonrpc: '2.0', id: null, error: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) } });

async function openSession(token = ADMIN): Promise<string> {
  const res = await send({ body: JSON.stringify(INIT), token });
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

describe('MCP over HTTP: transport errors are JSON-RPC errors', () => {
  it('bad JSON is a parse error (-32700), with or without a session, an empty body too', async () => {
    expect(await send({ body: '{"jsonrpc": "2.0", "id": 1, "method":' })).toEqual({ status: 400, headers: expect.anything(), body: rpcError(-32700, /^Parse error/) });
    expect((await send({ body: '' })).body).toEqual(rpcError(-32700, /^Parse error/));
    const session = await openSession();
    const res = await send({ body: '{not json', session });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(rpcError(-32700, /^Parse error/));
  });

  it('a JSON value that is no JSON-RPC message is refused as the SDK refuses it (-32700), with or without a session', async () => {
    for (const body of ['{"hello": "world"}', '42', '[1, 2]']) {
      const res = await send({ body });
      expect(res.status, body).toBe(400);
      expect(res.body, body).toEqual(rpcError(-32700, 'Parse error: Invalid JSON-RPC message'));
    }
    const session = await openSession();
    expect((await send({ body: '{"hello": "world"}', session })).body).toEqual(rpcError(-32700, 'Parse error: Invalid JSON-RPC message'));
  });

  it('a message other than initialize without Mcp-Session-Id is 400 (-32000); an unknown session is 404 (-32001), on POST, GET and DELETE', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(await send({ body: list })).toMatchObject({ status: 400, body: rpcError(-32000, /Mcp-Session-Id header is required/) });
    for (const method of ['GET', 'DELETE']) expect(await send({ method }), method).toMatchObject({ status: 400, body: rpcError(-32000, /Mcp-Session-Id header is required/) });
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await send({ method, session: 'no-such-session', ...(method === 'POST' ? { body: list } : {}) });
      expect(res, method).toMatchObject({ status: 404, body: rpcError(-32001, 'Session not found') });
    }
  });

  it('a session answers only the token that opened it; another content type is 415; another method is 405', async () => {
    const session = await openSession();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(await send({ body: list, session, token: OTHER })).toMatchObject({ status: 403, body: rpcError(-32000, /opened with another token/) });
    expect(await send({ body: 'hello', contentType: 'text/plain' })).toMatchObject({ status: 415, body: rpcError(-32000, /Content-Type must be application\/json/) });
    const put = await send({ method: 'PUT', body: list });
    expect(put).toMatchObject({ status: 405, body: rpcError(-32000, 'Method not allowed.') });
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('without the token it is still 401 in the API error shape (authentication is not the transport)', async () => {
    const res = await send({ body: JSON.stringify(INIT), token: 'wrong' });
    expect(res).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
  });
});
