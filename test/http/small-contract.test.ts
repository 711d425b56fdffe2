import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

const FAQ = { topic: 'billing', question: 'How long is the refund window for annual plans?', answer: 'Thirty days from the invoice.', expert_id: 'dana' };

describe('a malformed cursor', () => {
  // Every paginated list, with cursors it could never have handed out.
  const cases: Array<[string, string]> = [
    ['/api/v1/requests', 'garbage'],
    ['/api/v1/requests', 'dlv_01JZ0000000000000000000000'],
    ['/api/v1/deliveries', 'garbage'],
    ['/api/v1/deliveries', 'req_01JZ0000000000000000000000'],
    ['/api/v1/answers', 'garbage'],
    ['/api/v1/answers', '20'],
    ['/api/v1/answers?q=refund', 'garbage'],
    ['/api/v1/answers?q=refund', 'ans_01JZ0000000000000000000000'],
    ['/api/v1/answers?q=refund', '-5'],
  ];

  it.each(cases)('%s with cursor=%s is 400 bad_request naming the cursor, never an empty page', async (path, cursor) => {
    t = await buildTestApp();
    await t.call('POST', '/api/v1/requests', submitBody());
    await t.call('POST', '/api/v1/answers', FAQ);
    const res = await t.call('GET', `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: expect.stringContaining('cursor'), details: [{ path: 'querystring.cursor', message: expect.stringMatching(/next_cursor/) }] },
    });
  });

  it('the cursors a page hands out still page on every list', async () => {
    t = await buildTestApp();
    for (const question of ['One?', 'Two?', 'Three?']) await t.call('POST', '/api/v1/requests', submitBody({ question }));
    for (const question of ['Refund one?', 'Refund two?', 'Refund three?']) await t.call('POST', '/api/v1/answers', { ...FAQ, question });
    for (const path of ['/api/v1/requests?limit=2', '/api/v1/answers?limit=2', '/api/v1/answers?q=refund&limit=2']) {
      const first = (await t.call('GET', path)).body;
      expect(first.next_cursor, path).not.toBeNull();
      const second = await t.call('GET', `${path}&cursor=${first.next_cursor}`);
      expect(second.status, path).toBe(200);
      expect(second.body.items, path).toHaveLength(1);
    }
  });
});

describe('the submit answer', () => {
  it('carries request_status: proposed when the library answered it, beside the submit status', async () => {
    t = await buildTestApp();
    await t.call('POST', '/api/v1/answers', FAQ);
    const res = await t.call('POST', '/api/v1/requests', submitBody({ question: 'What is the refund window for annual plans?' }));
    expect(res.body).toEqual({ request_id: expect.any(String), status: 'queued', request_status: 'proposed' });
    expect((await t.call('GET', `/api/v1/requests/${res.body.request_id}`)).body.status).toBe('proposed');
  });

  it('carries the request status after routing, after a failure and after deduplication', async () => {
    t = await buildTestApp();
    const asked = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k1' }));
    expect(asked.body).toMatchObject({ status: 'queued', request_status: 'asked' });
    const again = await t.call('POST', '/api/v1/requests', submitBody({ dedup_key: 'k1' }));
    expect(again.body).toMatchObject({ request_id: asked.body.request_id, status: 'deduped_open', request_status: 'asked' });
    const failed = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'astrophysics' }));
    expect(failed.body).toMatchObject({ status: 'failed', request_status: 'failed' });
  });
});

describe('routes whose body is optional', () => {
  it('are documented so, and answer a body-less call (with or without a JSON content type) as an empty one', async () => {
    t = await buildTestApp();
    const doc = (await t.call('GET', '/api/v1/openapi.json')).body;
    const id = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id;
    const optional: Array<[string, string, string]> = [
      ['post', '/api/v1/requests/{id}/cancel', `/api/v1/requests/${id}/cancel`],
      ['post', '/api/v1/experts/{id}/mute', '/api/v1/experts/sam/mute'],
    ];
    for (const [method, path, url] of optional) {
      expect(doc.paths[path][method].requestBody, path).toMatchObject({ required: false });
      expect((await t.app.inject({ method: 'POST', url })).statusCode, url).toBe(200);
    }
    const withType = await t.app.inject({ method: 'POST', url: '/api/v1/experts/lee/mute', headers: { 'content-type': 'application/json' } });
    expect(withType.statusCode).toBe(200);
    // Every body that is documented as required is refused when missing.
    for (const [path, ops] of Object.entries<Record<string, { requestBody?: { required?: boolean } }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op.requestBody?.required !== true) continue;
        const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url: path.replace('{id}', id) });
        expect(res.statusCode, `${method} ${path}`).toBe(400);
      }
    }
  });
});
