import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

const ADMIN = 'admin-token-1';
const CONSUMER = 'consumer-token-1';

let t: TestApp;
afterEach(async () => t?.close());

async function get(url: string, host: string, token?: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: { host, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { status: res.statusCode, body: res.body.startsWith('{') ? JSON.parse(res.body) : res.body };
}

/** Every kind of route a web page could reach through DNS rebinding: API reads and writes, UI, bundle, MCP, metrics. */
const GUARDED = ['/api/v1/experts', '/api/v1/queue', '/api/v1/openapi.json', '/', '/index.html', '/assets/app.css', '/metrics'];

describe('Host check against DNS rebinding', () => {
  it('with authentication off, a foreign Host gets 403 naming server.allowed_hosts on every route but the probes', async () => {
    t = await buildTestApp();
    for (const url of GUARDED) {
      const res = await get(url, 'attacker.example.com');
      expect(res.status, url).toBe(403);
      expect(res.body.error, url).toMatchObject({ code: 'forbidden', message: expect.stringContaining('server.allowed_hosts') });
      expect(res.body.error.message, url).toContain('attacker.example.com');
    }
    const write = await t.app.inject({ method: 'POST', url: '/api/v1/requests', headers: { host: 'attacker.example.com:8776' }, payload: submitBody() });
    expect(write.statusCode).toBe(403);
    expect((await t.call('GET', '/api/v1/requests')).body.items).toEqual([]);
    const mcp = await t.app.inject({
      method: 'POST', url: '/mcp', headers: { host: 'attacker.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
    });
    expect(mcp.statusCode).toBe(403);
    // Probes send a pod address: they always answer.
    expect((await get('/healthz', '10.1.2.3:8776')).status).toBe(200);
    expect((await get('/readyz', '10.1.2.3:8776')).status).toBe(200);
  });

  it('with authentication off, loopback names and addresses on any port answer', async () => {
    t = await buildTestApp();
    for (const host of ['localhost', 'localhost:8776', '127.0.0.1:7101', '[::1]:9000', '[::1]', 'LOCALHOST:80']) {
      expect((await get('/api/v1/experts', host)).status, host).toBe(200);
    }
    // A name that merely starts like a loopback one is not loopback.
    expect((await get('/api/v1/experts', 'localhost.attacker.example.com')).status).toBe(403);
    expect((await get('/api/v1/experts', '127.0.0.1.nip.io')).status).toBe(403);
  });

  it('with authentication off, server.allowed_hosts and server.public_url name the other hosts that answer', async () => {
    t = await buildTestApp({ config: { server: { allowed_hosts: ['expertq.internal', 'ops.example.com:8443'], public_url: 'https://expertq.example.com' } } });
    expect((await get('/api/v1/experts', 'expertq.internal')).status).toBe(200);
    expect((await get('/api/v1/experts', 'expertq.internal:8776')).status).toBe(200);
    expect((await get('/api/v1/experts', 'EXPERTQ.internal')).status).toBe(200);
    expect((await get('/api/v1/experts', 'ops.example.com:8443')).status).toBe(200);
    // A listed port is the only port for that name.
    expect((await get('/api/v1/experts', 'ops.example.com')).status).toBe(403);
    expect((await get('/api/v1/experts', 'ops.example.com:8444')).status).toBe(403);
    expect((await get('/api/v1/experts', 'expertq.example.com')).status).toBe(200);
    expect((await get('/api/v1/experts', 'attacker.example.com')).status).toBe(403);
  });

  it('with authentication on, the Host is not checked unless server.allowed_hosts is set', async () => {
    t = await buildTestApp({ token: ADMIN });
    expect((await get('/api/v1/experts', 'expertq.example.com', ADMIN)).status).toBe(200);
  });

  it('with authentication on and server.allowed_hosts set, a foreign Host gets 403 before the token is looked at', async () => {
    t = await buildTestApp({ token: ADMIN, config: { server: { allowed_hosts: ['expertq.internal'] } } });
    expect((await get('/api/v1/experts', 'expertq.internal', ADMIN)).status).toBe(200);
    expect((await get('/api/v1/experts', 'localhost:8776', ADMIN)).status).toBe(200);
    const foreign = await get('/api/v1/experts', 'attacker.example.com', ADMIN);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toContain('server.allowed_hosts');
    expect((await get('/api/v1/experts', 'attacker.example.com')).status).toBe(403);
    expect((await get('/healthz', 'attacker.example.com')).status).toBe(200);
  });
});

describe('Host check on /mcp', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const initialize = (host: string) => t.app.inject({
    method: 'POST', url: '/mcp', payload: init,
    headers: { host, authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });

  it('a name in server.allowed_hosts opens a session on any port; the SDK still refuses other names', async () => {
    t = await buildTestApp({ token: ADMIN, config: { server: { allowed_hosts: ['expertq.internal'] } } });
    expect((await initialize('expertq.internal:8776')).statusCode).toBe(200);
    expect((await initialize('expertq.internal')).statusCode).toBe(200);
    expect((await initialize('evil.example')).statusCode).toBe(403);
  });

  it('with authentication on and no list, server.public_url\'s host opens a session and others are refused', async () => {
    t = await buildTestApp({ token: ADMIN, config: { server: { public_url: 'https://expertq.example.com' } } });
    expect((await initialize('expertq.example.com')).statusCode).toBe(200);
    expect((await initialize('evil.example')).statusCode).toBe(403);
  });
});

describe('role checks come before body validation', () => {
  it('a consumer token on a reviewer route gets 403 whatever the body', async () => {
    t = await buildTestApp({ token: ADMIN, credentials: [{ name: 'billing-bot', role: 'consumer', token: CONSUMER }] });
    for (const payload of [{ decided_by: 42, surprise: true }, 'not json at all', undefined]) {
      const res = await t.app.inject({
        method: 'POST', url: '/api/v1/proposals/prop_nope/accept',
        headers: { authorization: `Bearer ${CONSUMER}`, 'content-type': 'application/json' },
        ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
      });
      expect(res.statusCode, String(payload)).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('forbidden');
    }
    const retire = await t.app.inject({ method: 'POST', url: '/api/v1/answers/ans_x/retire', headers: { authorization: `Bearer ${CONSUMER}`, 'content-type': 'application/json' }, payload: '{"reason": 5' });
    expect(retire.statusCode).toBe(403);
  });
});
