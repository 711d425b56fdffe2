import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/delivery/address-guard.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { startServer } from '../../src/server.js';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody, type TestApp } from '../support/build-test-app.js';
import { captureLogger } from '../support/capture.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let t: TestApp;
afterEach(async () => t?.close());

const shape = (body: unknown) => expect(body).toEqual({ error: expect.objectContaining({ code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) }) });

/** Sends raw bytes to the server and reads the whole answer (status line, headers, body). */
function raw(url: string, bytes: Buffer | string, chunks: Array<Buffer | string> = []): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', (e) => (answer ? resolve(answer) : reject(e)));
    socket.write(bytes);
    for (const c of chunks) socket.write(c);
  });
}
const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('defect 1: durations have a sane range', () => {
  it.each([
    ['give_up_after', '9999999999999999m'],
    ['give_up_after', 'PT99999999999999H'],
    ['escalation_after', 'P365000000D'],
    ['escalation_after', 'P366D'],
    ['give_up_after', '0s'],
    ['escalation_after', 'PT0S'],
  ])('refuses routing_policy.%s = %s with a 400 that says why', async (key, value) => {
    t = await buildTestApp();
    const res = await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: { [key]: value } }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: `routing_policy.${key}`, message: expect.stringMatching(value.includes('0S') || value === '0s' ? /must be longer than 0/ : /longer than the maximum of 365 days|is not a duration/) })]);
    expect((await t.call('GET', '/api/v1/requests')).body.items).toEqual([]);
  });

  it('accepts give_up_after shorter than escalation_after: the request gives up before anyone else is asked', async () => {
    t = await buildTestApp();
    const res = await t.call('POST', '/api/v1/requests', submitBody({ routing_policy: { escalation_after: 'PT3H', give_up_after: 'PT1H' } }));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('queued');
  });

  it.each(['PT99999999999999H', 'P99999999999999D', 'P400D'])('refuses a consumer dedup_window of %s', async (window) => {
    t = await buildTestApp();
    const res = await t.call('POST', '/api/v1/consumers', { id: 'c1', handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'https://hooks.example.com/x' }, dedup_window: window });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/dedup_window must be at most 365 days/);
    expect((await t.call('GET', '/api/v1/consumers')).body).toEqual([]);
  });
});

describe('defect 2: deeply nested JSON', () => {
  const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  it.each(['context', 'kind_schemas'])('refuses 5,000 levels in %s with a 400, before anything recursive runs', async (field) => {
    t = await buildTestApp();
    const body =
      field === 'context'
        ? `{"consumer_id":"c","topic":"billing","question":"q?","context":{"asked_because":"x","deep":${nested(5000)}}}`
        : `{"id":"c1","handles_kinds":["answer"],"delivery":{"type":"webhook","url":"https://hooks.example.com/x"},"kind_schemas":{"answer":${nested(5000)}}}`;
    const res = await t.app.inject({ method: 'POST', url: field === 'context' ? '/api/v1/requests' : '/api/v1/consumers', headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.message).toMatch(/nests deeper than 64 levels/);
  });
});

describe('defects 3, 4, 6: every answer from every layer has the SPEC error shape', () => {
  async function listening(): Promise<string> {
    t = await buildTestApp();
    return t.app.listen({ port: 0, host: '127.0.0.1' });
  }

  it.each(['/api/v1/requests/%', '/api/v1/requests/%zz', '/api/v1/requests/%E0%A4%A'])('a malformed URL %s: 400 in the SPEC shape', async (path) => {
    const url = await listening();
    const answer = await raw(url, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 400/);
    shape(jsonOf(answer));
  });

  it('a 20 KB header: 431 in the SPEC shape', async () => {
    const url = await listening();
    const answer = await raw(url, `GET /api/v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 431/);
    shape(jsonOf(answer));
  });

  it.each([
    ['both Content-Length and Transfer-Encoding', 'POST /api/v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a garbage request line', 'HELLO THERE\r\n\r\n'],
  ])('%s: 400 in the SPEC shape', async (_why, request) => {
    const url = await listening();
    const answer = await raw(url, request);
    expect(answer).toMatch(/^HTTP\/1.1 400/);
    shape(jsonOf(answer));
  });

  it('a 101-character id is a 404, not a 414; an id of 150 characters the API accepted can be addressed', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
    const res = await t.call('GET', `/api/v1/requests/${'a'.repeat(101)}`);
    expect(res.status).toBe(404);
    shape(res.body);
    const id = 'c'.repeat(150);
    expect((await t.call('POST', '/api/v1/consumers', { id, handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'http://127.0.0.1:9/x' } })).status).toBe(201);
    expect((await t.call('DELETE', `/api/v1/consumers/${id}`)).status).toBe(204);
    const expert = 'e'.repeat(150);
    expect((await t.call('PUT', '/api/v1/experts', [...EXAMPLE_EXPERTS, { id: expert, name: 'Long Id', topics: ['billing'] }])).status).toBe(200);
    expect((await t.call('POST', `/api/v1/experts/${expert}/unmute`)).status).toBe(200);
    expect((await t.call('GET', `/api/v1/requests/${'a'.repeat(201)}`)).status).toBe(400);
  });

  it('an oversize upload always gets the 413 answer, never a reset, however it is written', async () => {
    const url = await listening();
    // 2 MiB in one write, and 8 MiB in 64 KiB pieces (the server answers while the client still writes).
    const pieces = [[Buffer.alloc(2 * 1_048_576, 'a')], Array.from({ length: 128 }, () => Buffer.alloc(65_536, 'a'))];
    for (const chunks of pieces) {
      const length = chunks.reduce((n, c) => n + c.length, 0);
      const answer = await raw(url, `POST /api/v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`, chunks);
      expect(answer).toMatch(/^HTTP\/1.1 413/);
      expect(jsonOf(answer).error.code).toBe('payload_too_large');
    }
    // As an HTTP client sends it: the client must get the answer, not a failed write.
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${url}/api/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(2 * 1_048_576, 'a') });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    }
  });
});

describe('defect 5: SSRF through IPv4-compatible IPv6 and stored IP literals', () => {
  it.each(['::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::'])('%s is not a public address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['http://[::127.0.0.1]/', 'http://[::7f00:1]/'])('refuses %s as a webhook URL', async (url) => {
    t = await buildTestApp();
    const res = await t.call('POST', '/api/v1/consumers', { id: 'c1', handles_kinds: ['answer'], delivery: { type: 'webhook', url } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].message).toMatch(/private, loopback or link-local/);
  });

  it('does not deliver to a stored IP-literal URL once private webhooks are turned off', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      await expect(postWebhook(url, '{}', {}, { allowPrivate: false })).rejects.toThrow(/not a public address/);
      expect(receiver.arrived).toBe(0);
      expect((await postWebhook(url, '{}', {}, { allowPrivate: true })).status).toBe(200);
    } finally {
      await receiver.stop();
    }
  });
});

describe('defect 7: a set but empty token variable', () => {
  it('stops start-up, naming the variable; unset still runs without authentication, warned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-token-'));
    try {
      writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' } }));
      const { log, logs } = captureLogger();
      await expect(startServer({ configPath: join(dir, 'service.yaml'), env: { SERVICE_API_TOKEN: '' }, logger: log, port: 0 })).rejects.toThrow(/SERVICE_API_TOKEN is set but empty/);
      // The example placeholder is refused too (issue 12): it would be a token everyone knows.
      await expect(startServer({ configPath: join(dir, 'service.yaml'), env: { SERVICE_API_TOKEN: 'change-me' }, logger: log, port: 0 })).rejects.toThrow(/still the example placeholder "change-me"/);
      const server = await startServer({ configPath: join(dir, 'service.yaml'), env: {}, logger: log, port: 0 });
      await server.close();
      expect(logs.text).toMatch(/authentication is DISABLED: SERVICE_API_TOKEN is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
