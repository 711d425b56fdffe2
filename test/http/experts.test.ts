import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { unwritableConfig } from '../../src/service/experts/experts.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

const YAML = `# expertq config for the billing team
org:
  name: Acme   # shown to experts
  timezone: Europe/Berlin

# limits we agreed with the experts
defaults:
  escalation_after: 90m
  max_open_asks_per_expert: 2

# who we ask
experts:
  - id: dana
    name: Dana Smith
    topics: [billing]
    escalation_to: lee
  - id: lee
    name: Lee Chen
    topics: [billing, payments]

topics:
  # the security team's inbox
  security:
    fallback: lee
`;

let t: TestApp;
afterEach(async () => t.close());

describe('GET /api/v1/experts', () => {
  it('returns configuration plus exact live state', async () => {
    t = await buildTestApp();
    await t.call('POST', '/api/v1/requests', submitBody());
    await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.' });
    const experts = (await t.call('GET', '/api/v1/experts')).body;
    expect(experts[0]).toEqual({
      id: 'dana',
      name: 'Dana Smith',
      topics: ['billing', 'invoices'],
      escalation_to: 'lee',
      reached_on: ['console'],
      muted: false,
      open_asks: 1,
      asks_today: 2,
      available_now: true,
      next_available_at: null,
      unavailable: null,
      away: null,
    });
    expect(experts.map((e: { id: string }) => e.id)).toEqual(['dana', 'lee', 'sam']);
  });

  it('gzips the registry for a client that takes it (the web UI), and shows changes in it too', async () => {
    t = await buildTestApp();
    const read = async (encoding: string) => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/experts', headers: { 'accept-encoding': encoding } });
      expect(res.statusCode).toBe(200);
      expect(res.headers.vary).toBe('accept-encoding');
      const gzipped = res.headers['content-encoding'] === 'gzip';
      return { gzipped, experts: JSON.parse((gzipped ? gunzipSync(res.rawPayload) : res.rawPayload).toString('utf8')) };
    };
    const plain = await read('identity');
    expect(plain.gzipped).toBe(false);
    expect(await read('gzip, deflate, br')).toEqual({ gzipped: true, experts: plain.experts });
    expect((await read('br;q=1, gzip;q=0')).gzipped).toBe(false);
    await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['dana'] }));
    const after = await read('gzip');
    expect(after.experts[0]).toMatchObject({ id: 'dana', open_asks: 1, asks_today: 1 });
    expect(after.experts).toEqual((await read('identity')).experts);
  });

  it('shows every change on the next read, however often the page refreshes', async () => {
    t = await buildTestApp({
      config: {
        org: { name: 'Acme', timezone: 'Europe/Berlin' },
        experts: [{ id: 'ana', name: 'Ana Ruiz', topics: ['payments'], working_hours: 'Mon-Fri 09:00-17:30' }],
        topics: {},
      },
    });
    t.clock.set('2026-11-24T16:29:00Z'); // Tue 17:29 in Berlin
    const ana = async () => (await t.call('GET', '/api/v1/experts')).body[0];
    expect(await ana()).toMatchObject({ muted: false, open_asks: 0, available_now: true });
    expect(await ana()).toMatchObject({ muted: false, open_asks: 0, available_now: true });
    await t.call('POST', '/api/v1/requests', submitBody({ topic: 'payments' }));
    expect(await ana()).toMatchObject({ open_asks: 1, asks_today: 1 });
    await t.call('POST', '/api/v1/experts/ana/mute', {});
    expect(await ana()).toMatchObject({ muted: true, available_now: false, unavailable: { why: 'muted' } });
    await t.call('POST', '/api/v1/experts/ana/unmute');
    expect(await ana()).toMatchObject({ muted: false, available_now: true, unavailable: null });
    t.clock.advance(60_000); // 17:30: the working day is over
    expect(await ana()).toMatchObject({ available_now: false, unavailable: { why: 'working_hours', until: '2026-11-25T08:00:00.000Z' } });
  });

  it('says who is outside their working hours and when they are next available', async () => {
    t = await buildTestApp({
      config: {
        org: { name: 'Acme', timezone: 'Europe/Berlin' },
        experts: [
          { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:00', max_asks_per_day: 3 },
          { id: 'ana', name: 'Ana Ruiz', topics: ['payments'], working_hours: 'Mon-Fri 09:00-17:30' },
        ],
        topics: {},
      },
    });
    t.clock.set('2026-11-24T12:00:00Z'); // Tue 20:00 in Singapore, 13:00 in Berlin
    const [mei, ana] = (await t.call('GET', '/api/v1/experts')).body;
    expect(mei).toMatchObject({
      timezone: 'Asia/Singapore',
      working_hours: 'Mon-Fri 09:00-17:00',
      max_asks_per_day: 3,
      available_now: false,
      next_available_at: '2026-11-25T01:00:00.000Z',
      unavailable: { why: 'working_hours', until: '2026-11-25T01:00:00.000Z' },
      away: null,
    });
    expect(ana).toMatchObject({ working_hours: 'Mon-Fri 09:00-17:30', available_now: true, next_available_at: null, unavailable: null });
    expect(ana).not.toHaveProperty('timezone');
    // The topic counts only Ana as available now.
    expect((await t.call('GET', '/api/v1/topics')).body).toEqual([{ topic: 'payments', experts: 2, available_now: 1, fallback: null }]);
  });

  it('the API description lists the availability fields of an expert', async () => {
    t = await buildTestApp();
    const expert = (await t.call('GET', '/api/v1/openapi.json')).body.components.schemas.Expert;
    expect(Object.keys(expert.properties)).toEqual(expect.arrayContaining(['timezone', 'working_hours', 'max_open_asks', 'max_asks_per_day', 'next_available_at', 'away']));
    expect(expert.required).toEqual(expect.arrayContaining(['available_now', 'next_available_at', 'away']));
  });

  it('asks_today resets at local midnight of org.timezone', async () => {
    t = await buildTestApp({ config: { org: { name: 'Acme', timezone: 'America/New_York' } } });
    t.clock.set('2026-11-23T04:30:00Z'); // 23:30 in New York, Nov 22
    await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['sam'] }));
    t.clock.set('2026-11-23T04:59:00Z');
    expect((await t.call('GET', '/api/v1/experts')).body[2].asks_today).toBe(1);
    t.clock.set('2026-11-23T05:00:00Z'); // midnight in New York
    expect((await t.call('GET', '/api/v1/experts')).body[2].asks_today).toBe(0);
  });
});

describe('PUT /api/v1/experts', () => {
  const next = [
    { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments', 'refunds'] },
    { id: 'ravi', name: 'Ravi Patel', topics: ['tax'], escalation_to: 'lee' },
  ];

  it('replaces the registry, rewrites only the experts section and keeps comments and other sections', async () => {
    t = await buildTestApp({ yaml: YAML });
    const res = await t.call('PUT', '/api/v1/experts', next);
    expect(res.status).toBe(200);
    expect(res.body.map((e: { id: string }) => e.id)).toEqual(['lee', 'ravi']);

    const text = readFileSync(t.configFile, 'utf8');
    for (const comment of ['# expertq config for the billing team', '# shown to experts', '# limits we agreed with the experts', "# the security team's inbox", '# who we ask']) {
      expect(text).toContain(comment);
    }
    expect(text).toContain('escalation_after: 90m');
    // Every other section keeps its exact text.
    expect(text.startsWith(YAML.slice(0, YAML.indexOf('experts:\n')))).toBe(true);
    expect(text.endsWith(YAML.slice(YAML.indexOf('\ntopics:')))).toBe(true);
    expect(text).not.toContain('Dana Smith');
    const reloaded = loadConfig(t.configFile);
    expect(reloaded.experts).toEqual([
      { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments', 'refunds'] },
      { id: 'ravi', name: 'Ravi Patel', topics: ['tax'], escalation_to: 'lee' },
    ]);
    expect(reloaded.org.timezone).toBe('Europe/Berlin');

    // Routing uses the new registry at once.
    const asked = await t.call('POST', '/api/v1/requests', submitBody({ topic: 'tax' }));
    expect((await t.call('GET', `/api/v1/requests/${asked.body.request_id}`)).body.asks[0].expert_id).toBe('ravi');
    expect((await t.call('GET', '/api/v1/experts')).body.map((e: { id: string }) => e.id)).toEqual(['lee', 'ravi']);
  });

  it('keeps time zone, working hours and caps through a round trip, and the file its comments', async () => {
    t = await buildTestApp({ yaml: YAML });
    const withHours = [
      { id: 'dana', name: 'Dana Smith', topics: ['billing'], escalation_to: 'lee', timezone: 'Asia/Singapore', working_hours: 'Mon-Fri 09:00-17:30', max_open_asks: 1, max_asks_per_day: 5 },
      { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments'] },
    ];
    expect((await t.call('PUT', '/api/v1/experts', withHours)).status).toBe(200);
    const text = readFileSync(t.configFile, 'utf8');
    expect(text).toContain('# who we ask');
    expect(text).toContain("# the security team's inbox");
    expect(loadConfig(t.configFile).experts).toEqual(withHours);
    // The same registry again changes nothing in the file.
    expect((await t.call('PUT', '/api/v1/experts', withHours)).status).toBe(200);
    expect(readFileSync(t.configFile, 'utf8')).toBe(text);
    // The running registry carries them too: a reload of what it holds gives the same entries.
    expect(t.service.experts.toEntries()[0]).toEqual(withHours[0]);
  });

  it('keeps live state by id across a replace', async () => {
    t = await buildTestApp({ yaml: YAML });
    await t.call('POST', '/api/v1/requests', submitBody({ target_experts: ['lee'] }));
    await t.call('POST', '/api/v1/replies', { expert_id: 'lee', text: 'mute' });
    const res = await t.call('PUT', '/api/v1/experts', next);
    expect(res.body[0]).toMatchObject({ id: 'lee', muted: true, asks_today: 1 });
  });

  it.each([
    ['duplicate ids', [next[0], { ...next[0] }], '1.id'],
    ['empty name', [{ id: 'a', name: ' ', topics: ['x'] }], '0.name'],
    ['no topics', [{ id: 'a', name: 'A', topics: [] }], '0.topics'],
    ['unknown escalation target', [{ id: 'a', name: 'A', topics: ['x'], escalation_to: 'zz' }], '0.escalation_to'],
    ['escalation to itself', [{ id: 'a', name: 'A', topics: ['x'], escalation_to: 'a' }], '0.escalation_to'],
    ['escalation cycle', [{ id: 'a', name: 'A', topics: ['x'], escalation_to: 'b' }, { id: 'b', name: 'B', topics: ['y'], escalation_to: 'a' }], '0.escalation_to'],
    ['unknown field', [{ id: 'a', name: 'A', topics: ['x'], team: 'ops' }], '0'],
    ['bad working hours', [{ id: 'a', name: 'A', topics: ['x'], working_hours: 'weekdays 9-5' }], '0.working_hours'],
    ['unknown time zone', [{ id: 'a', name: 'A', topics: ['x'], timezone: 'Europe/Atlantis' }], '0.timezone'],
    ['a cap below one', [{ id: 'a', name: 'A', topics: ['x'], max_asks_per_day: 0 }], '0.max_asks_per_day'],
    ['removes a topic fallback', [{ id: 'dana', name: 'Dana', topics: ['x'] }], 'topics.security.fallback'],
  ])('%s → 400 and nothing changes', async (_name, body, path) => {
    t = await buildTestApp({ yaml: YAML });
    const res = await t.call('PUT', '/api/v1/experts', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(readFileSync(t.configFile, 'utf8')).toBe(YAML);
    expect((await t.call('GET', '/api/v1/experts')).body.map((e: { id: string }) => e.id)).toEqual(['dana', 'lee']);
  });

  it('a config the server cannot write → a clear error naming the file; registry and file unchanged', async () => {
    t = await buildTestApp({ yaml: YAML });
    // The file cannot be replaced: where its temp file must go, a directory is in the way (as root,
    // permissions would not stop the test).
    mkdirSync(join(dirname(t.configFile), `.${basename(t.configFile)}.${process.pid}.tmp`));
    const res = await t.call('PUT', '/api/v1/experts', next);
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({
      code: 'internal',
      message: `The experts were not changed: the configuration file ${t.configFile} cannot be written (EISDIR). Let the server write it (file and folder), or edit the file yourself: the server reloads its experts when the file changes.`,
    });
    expect(readFileSync(t.configFile, 'utf8')).toBe(YAML);
    expect((await t.call('GET', '/api/v1/experts')).body.map((e: { id: string }) => e.id)).toEqual(['dana', 'lee']);
  });

  it('a read-only config (a mounted config map) → 409 conflict naming the file; registry unchanged', async () => {
    t = await buildTestApp({ yaml: YAML });
    // Read-only even for root: the config is a link into sysfs, where nobody may create the new file.
    rmSync(t.configFile);
    symlinkSync('/sys/devices/system/cpu/online', t.configFile);
    const res = await t.call('PUT', '/api/v1/experts', next);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(res.body.error.message).toContain(t.configFile);
    expect(res.body.error.message).toContain('read-only');
    expect((await t.call('GET', '/api/v1/experts')).body.map((e: { id: string }) => e.id)).toEqual(['dana', 'lee']);
  });
});

describe('why the config file could not be written', () => {
  it.each([
    ['EROFS', 409, 'conflict'],
    ['EACCES', 409, 'conflict'],
    ['EPERM', 409, 'conflict'],
    ['EISDIR', 500, 'internal'],
    ['ENOSPC', 500, 'internal'],
  ])('%s → %i %s, naming the file', (code, status, name) => {
    const error = Object.assign(new Error(`${code}: failed`), { code });
    const refusal = unwritableConfig('/etc/expertq/service.yaml', error);
    expect(refusal.status).toBe(status);
    expect(refusal.code).toBe(name);
    expect(refusal.message).toContain('/etc/expertq/service.yaml');
    expect(refusal.message).toContain(code);
  });
});
