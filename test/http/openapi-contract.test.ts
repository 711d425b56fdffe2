import type { AddressInfo } from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';
import { ROLE_TOKENS, signInConfig, startContractProvider, type TestProvider } from '../support/contract-app.js';
import { EXAMPLES, Fixtures, OWN_CASES, type Example } from '../support/contract-examples.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is JSON walked generically */
type Operation = { method: string; path: string; id: string; op: any };
type Call = Example & { token?: string | null; rawBody?: string; contentType?: string };

const BODY_LIMIT = 1_048_576;

/**
 * Every operation of the served OpenAPI document, called validly and wrongly; each answer must have a
 * status the document lists for that operation and a body its schema accepts. The operations come
 * from the document, so a new route is covered as soon as it is added (with its line in EXAMPLES).
 */
describe('the OpenAPI document is the contract of every operation', () => {
  let provider: TestProvider;
  let t: TestApp;
  let doc: any;
  let operations: Operation[];
  let fx: Fixtures;
  let baseUrl: string;
  const allowed: Record<'consumer' | 'reviewer', Set<string>> = { consumer: new Set(), reviewer: new Set() };
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  const problems: string[] = [];
  const figures = { calls: 0 };

  beforeAll(async () => {
    provider = await startContractProvider();
    t = await buildTestApp(signInConfig(provider));
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, id: op.operationId, op })));
    fx = new Fixtures(t, provider);
    for (const role of ['consumer', 'reviewer'] as const) {
      const me = await t.callAs(ROLE_TOKENS[role], 'GET', '/api/v1/me');
      allowed[role] = new Set(me.body.routes);
    }
    // The event stream never ends, so it is read over a real connection.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  function validatorFor(schema: any): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      // Refs point at #/components/…: the components ride along in the schema's root.
      validate = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, validate);
    }
    return validate;
  }

  /** Sends a call and records any way its answer strays from the document. */
  async function send(o: Operation, call: Call, what: string, expected?: number | ((status: number) => boolean)): Promise<number> {
    let url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.params?.[name] ?? `missing-${name}`));
    if (call.query) url += `?${new URLSearchParams(call.query)}`;
    const headers: Record<string, string> = {};
    const token = call.token === undefined ? ROLE_TOKENS.admin : call.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (call.cookie) headers.cookie = call.cookie;
    const payload = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
    if (payload !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
    const res = await t.app.inject({ method: o.method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
    await t.service.idle();
    figures.calls++;
    const where = `${o.id} (${o.method} ${o.path}) ${what}: ${res.statusCode}`;
    const documented = o.op.responses[String(res.statusCode)];
    if (!documented) problems.push(`${where} is not documented (documented: ${Object.keys(o.op.responses).join(' ')}) ${res.body.slice(0, 160)}`);
    if (expected !== undefined && !(typeof expected === 'number' ? res.statusCode === expected : expected(res.statusCode))) {
      problems.push(`${where}, expected ${typeof expected === 'number' ? expected : 'otherwise'}: ${res.body.slice(0, 200)}`);
    }
    const schema = documented?.content?.['application/json']?.schema;
    if (documented && schema) {
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        problems.push(`${where} body is not JSON: ${res.body.slice(0, 100)}`);
        return res.statusCode;
      }
      const validate = validatorFor(schema);
      if (!validate(body)) problems.push(`${where} body does not match its schema: ${ajv.errorsText(validate.errors)} ${res.body.slice(0, 160)}`);
    } else if (documented && !documented.content && res.body !== '') {
      problems.push(`${where} documents no body, but sent ${res.body.slice(0, 100)}`);
    }
    return res.statusCode;
  }

  const success = (status: number) => status >= 200 && status < 400;
  const routeKey = (o: Operation) => `${o.method} ${o.path.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`;
  const readsBody = (o: Operation) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(o.method);
  const isPublic = (o: Operation) => Array.isArray(o.op.security) && o.op.security.length === 0;

  it('lists every operation with an example call', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((o) => !EXAMPLES[o.id]).map((o) => `${o.id ?? '(no operationId)'}: ${o.method} ${o.path}`)).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((id) => !operations.some((o) => o.id === id))).toEqual([]);
  });

  it('answers every call, valid or not, with a documented status and a body its schema accepts', async () => {
    for (const o of operations) {
      const example = await EXAMPLES[o.id]!(fx);
      const stream = o.op.responses['200']?.content?.['text/event-stream'];
      if (stream) {
        const abort = new AbortController();
        const res = await fetch(`${baseUrl}${o.path}`, { headers: { authorization: `Bearer ${ROLE_TOKENS.admin}` }, signal: abort.signal });
        expect(res.status, o.id).toBe(200);
        expect(res.headers.get('content-type'), o.id).toMatch(/^text\/event-stream/);
        abort.abort();
      } else {
        await send(o, example, 'valid', success);
      }

      if (!isPublic(o)) {
        await send(o, { ...example, token: null }, 'without a token', 401);
        await send(o, { ...example, token: 'not-a-token' }, 'with a wrong token', 401);
        const key = routeKey(o);
        const wrongRole = !allowed.consumer.has(key) ? 'consumer' : !allowed.reviewer.has(key) ? 'reviewer' : null;
        // Role checks come first: a caller who may not call the route gets 403 whatever the body.
        if (wrongRole) await send(o, { ...example, token: ROLE_TOKENS[wrongRole], body: { zz_unknown: true } }, `as a ${wrongRole}`, 403);
      }
      if (o.op.requestBody) {
        await send(o, { ...example, body: { zz_unknown: true } }, 'with a body of the wrong shape', 400);
        // The document says whether the body may be left out; the route must agree.
        const optional = o.op.requestBody.required === false;
        await send(o, { ...example, body: undefined }, `without its ${optional ? 'optional' : 'required'} body`, optional ? success : 400);
      }
      if (readsBody(o)) {
        await send(o, { ...example, rawBody: '{"unterminated": ' }, 'with a body that is no JSON', 400);
        await send(o, { ...example, rawBody: 'question=hi', contentType: 'application/x-www-form-urlencoded' }, 'with a form body', 400);
        await send(o, { ...example, rawBody: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }) }, 'with a body over the limit', 413);
      }
      if (o.path.includes('{')) {
        const params = Object.fromEntries(Object.keys(example.params ?? {}).map((name) => [name, 'no-such-record']));
        await send(o, { ...example, params }, 'naming a record that does not exist', 404);
      }
      if ((o.op.parameters ?? []).some((p: any) => p.in === 'query')) {
        await send(o, { ...example, query: { ...example.query, zz_unknown: '1' } }, 'with an unknown query parameter');
        for (const p of (o.op.parameters as any[]).filter((q) => q.in === 'query' && q.name === 'cursor')) {
          await send(o, { ...example, query: { ...example.query, [p.name]: 'garbage' } }, 'with a malformed cursor', 400);
        }
      }
    }
    // A 5xx is logged with its cause: show the first few beside the problems.
    if (problems.length > 0) console.log(t.logs.text.split('\n').filter((line) => line.includes('"level":50')).slice(0, 3).join('\n'));
    for (const [id, cases] of Object.entries(OWN_CASES)) {
      const o = operations.find((op) => op.id === id);
      if (!o) {
        problems.push(`OWN_CASES names ${id}, which the document does not list`);
        continue;
      }
      for (const c of await cases(fx)) await send(o, c.call, c.what, c.status);
    }
    console.log(`contract: ${operations.length} operations, ${figures.calls} calls, ${problems.length} answers off the document`);
    expect(problems).toEqual([]);
  });
});
