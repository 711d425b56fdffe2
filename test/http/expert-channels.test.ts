import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';

const EMAIL = { smtp_url_env: 'SMTP_URL', from: 'Acme expertq <expertq@acme.example>' };
const EXPERTS = [
  { id: 'dana', name: 'Dana Smith', topics: ['billing'], email: 'dana@acme.example', slack: 'U0DANA', channels: ['email', 'slack'] },
  { id: 'U0LEE', name: 'Lee Chen', topics: ['billing'] },
  { id: 'sam', name: 'Sam Okafor', topics: ['deployments'], teams: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' },
];

let t: TestApp;
afterEach(async () => t.close());

describe('expert addresses and channel preference', () => {
  it('are read from the file, shown by GET /experts, and kept by PUT /experts', async () => {
    t = await buildTestApp({ config: { email: EMAIL, experts: EXPERTS } });
    const experts = (await t.call('GET', '/api/v1/experts')).body;
    expect(experts[0]).toMatchObject({ id: 'dana', email: 'dana@acme.example', slack: 'U0DANA', channels: ['email', 'slack'], reached_on: ['console'] });
    expect(experts[1]).not.toHaveProperty('slack');
    expect(experts[2]).toMatchObject({ teams: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });

    const put = await t.call('PUT', '/api/v1/experts', [{ ...EXPERTS[0], channels: ['email'] }, EXPERTS[1], EXPERTS[2]]);
    expect(put.status).toBe(200);
    expect(put.body[0]).toMatchObject({ email: 'dana@acme.example', channels: ['email'] });
    // The file the service rewrote says the same, so a restart keeps it.
    const written = parse(readFileSync(t.configFile, 'utf8')) as { experts: Array<Record<string, unknown>> };
    expect(written.experts[0]).toMatchObject({ id: 'dana', email: 'dana@acme.example', slack: 'U0DANA', channels: ['email'] });
  });

  it('PUT /experts refuses a malformed address and a channel the service does not have, and changes nothing', async () => {
    t = await buildTestApp({ config: { email: EMAIL, experts: EXPERTS } });
    const before = readFileSync(t.configFile, 'utf8');
    const bad = [
      { body: [{ ...EXPERTS[1], email: 'lee at acme' }], path: '0.email', says: /email address/ },
      { body: [{ ...EXPERTS[1], slack: 'lee' }], path: '0.slack', says: /Slack user id/ },
      { body: [{ ...EXPERTS[1], teams: 'not-a-guid' }], path: '0.teams', says: /Entra object id/ },
      { body: [{ ...EXPERTS[1], channels: ['pager'] }], path: '0.channels.0', says: /slack|teams|email/ },
      { body: [{ ...EXPERTS[1], channels: ['email', 'email'] }], path: '0.channels', says: /twice/ },
      // No `teams:` section: a preference for Teams is refused, naming what to configure.
      { body: [{ ...EXPERTS[2], channels: ['teams'] }], path: 'experts.0.channels.0', says: /teams: section/ },
    ];
    for (const { body, path, says } of bad) {
      const res = await t.call('PUT', '/api/v1/experts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
      const detail = res.body.error.details.find((d: { path: string }) => d.path === path);
      expect(detail, JSON.stringify(res.body.error.details)).toBeDefined();
      expect(detail.message).toMatch(says);
    }
    expect(readFileSync(t.configFile, 'utf8')).toBe(before);
    expect((await t.call('GET', '/api/v1/experts')).body).toHaveLength(3);
  });

  it('warns at start about a preferred channel that is not configured and an expert nobody can reach', async () => {
    t = await buildTestApp({ config: { experts: [{ id: 'kim', name: 'Kim', topics: ['x'], email: 'kim@acme.example', channels: ['email'] }, EXPERTS[2]] } });
    const warnings = t.logs.lines.filter((l) => l.level === 40).map((l) => String(l.msg));
    expect(warnings).toContainEqual(expect.stringMatching(/experts\.0\.channels\.0 "email" is not a channel this service has \(configure the email: section\)/));
  });
});
