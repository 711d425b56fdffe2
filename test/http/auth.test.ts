import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { Capture, captureLogger } from '../support/capture.js';

let t: TestApp;
afterEach(async () => t.close());

describe('authentication', () => {
  it('401s a missing or wrong token in the SPEC error shape, on every API route', async () => {
    t = await buildTestApp({ token: 's3cret' });
    for (const [method, url] of [
      ['GET', '/api/v1/proposals?status=pending'],
      ['POST', '/api/v1/requests'],
      ['GET', '/api/v1/experts'],
      ['PUT', '/api/v1/experts'],
      ['POST', '/api/v1/replies'],
      ['GET', '/api/v1/audit?request_id=x'],
    ] as const) {
      const none = await t.app.inject({ method, url });
      expect(none.statusCode, `${method} ${url}`).toBe(401);
      expect(none.json()).toEqual({ error: { code: 'unauthorized', message: 'A valid bearer token is required: send Authorization: Bearer <token>.' } });
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const wrong = await t.app.inject({ method, url, headers: { authorization: 'Bearer s3cret-but-longer' } });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ error: { code: 'unauthorized', message: 'The bearer token sent is not one this server accepts.' } });
      expect(wrong.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
    const ok = await t.call('POST', '/api/v1/requests', submitBody());
    expect(ok.status).toBe(200);
  });

  it('an empty "Bearer " is answered as no token sent, not as a token refused', async () => {
    t = await buildTestApp({ token: 's3cret' });
    for (const authorization of ['Bearer ', 'Bearer    ', 'bearer']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/experts', headers: { authorization } });
      expect(res.statusCode, JSON.stringify(authorization)).toBe(401);
      expect(res.json().error.message, JSON.stringify(authorization)).toBe('A valid bearer token is required: send Authorization: Bearer <token>.');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('a rejected call changes nothing', async () => {
    t = await buildTestApp({ token: 's3cret' });
    await t.app.inject({ method: 'POST', url: '/api/v1/requests', payload: submitBody(), headers: { authorization: 'Bearer nope' } });
    expect((await t.call('GET', '/api/v1/requests')).body.items).toEqual([]);
  });

  it('accepts every call when no token is configured', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/experts' });
    expect(res.statusCode).toBe(200);
  });

  it('never logs the token', async () => {
    t = await buildTestApp({ token: 'tok-abc-123' });
    await t.call('POST', '/api/v1/requests', submitBody());
    await t.app.inject({ method: 'GET', url: '/api/v1/experts', headers: { authorization: 'Bearer wrong-tok' } });
    expect(t.logs.text).not.toContain('tok-abc-123');
    expect(t.logs.text).not.toContain('wrong-tok');
  });
});

describe('public surfaces', () => {
  it('serves an OpenAPI 3.1 document without a token, generated from the route schemas', async () => {
    t = await buildTestApp({ token: 's3cret' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/api/v1/requests', '/api/v1/requests/{id}', '/api/v1/requests/{id}/cancel', '/api/v1/proposals', '/api/v1/proposals/{id}/accept', '/api/v1/proposals/{id}/reject', '/api/v1/experts', '/api/v1/replies', '/api/v1/audit']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    const body = doc.paths['/api/v1/requests'].post.requestBody.content['application/json'].schema;
    const submit = body.$ref ? doc.components.schemas[body.$ref.split('/').at(-1)] : body;
    expect(submit.required).toEqual(expect.arrayContaining(['consumer_id', 'topic', 'question', 'context']));
    expect(submit.additionalProperties).toBe(false);
    expect(doc.paths['/api/v1/proposals/{id}/reject'].post.requestBody.content['application/json'].schema.required).toEqual(['reason']);
  });

  it('serves the web UI at / without a token', async () => {
    t = await buildTestApp({ token: 's3cret' });
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });

  it('serves only the page and its built assets from web/, not the UI sources', async () => {
    t = await buildTestApp();
    expect((await t.app.inject({ method: 'GET', url: '/assets/app.js' })).statusCode).toBe(200);
    for (const url of ['/src/main.tsx', '/tsconfig.json', '/src/api.ts']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('POST /api/v1/chat/events answers 501 when no chat transport is configured', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/chat/events', payload: '{"type":"url_verification"}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(501);
    expect(res.json().error.code).toBe('not_implemented');
  });

  it('unknown routes get 404 in the error shape', async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'There is no route GET /api/v1/nothing-here.' } });
  });
});

describe('start-up', () => {
  it('warns that authentication is disabled when the token variable is unset, and not when it is set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-start-'));
    writeFileSync(join(dir, 'service.yaml'), 'org: {name: Acme}\n');
    t = await buildTestApp(); // keeps afterEach happy
    try {
      for (const [env, warned] of [[{}, true], [{ SERVICE_API_TOKEN: 'x' }, false]] as const) {
        const { log, logs } = captureLogger();
        const server = await startServer({ configPath: join(dir, 'service.yaml'), env, logger: log, out: new Capture(), port: 0 });
        await server.close();
        const warning = logs.lines.find((l) => String(l.msg).startsWith('authentication is DISABLED'));
        expect(Boolean(warning), JSON.stringify(env)).toBe(warned);
        if (warning) expect(warning).toMatchObject({ level: 40, env: 'SERVICE_API_TOKEN' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
