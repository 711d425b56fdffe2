import { afterEach, expect, it } from 'vitest';
import { startTeamsKit, type TeamsKit } from '../support/teams-kit.js';

let kit: TeamsKit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

it('with teams: configured, an expert may prefer Teams: no warning at start, and PUT /experts keeps the preference', async () => {
  kit = await startTeamsKit({ experts: (p) => [{ id: 'lee', name: 'Lee Chen', topics: ['billing'], teams: p.lee.aadObjectId, channels: ['teams'] }] });
  const warnings = kit.logs.lines.filter((l) => l.level === 40).map((l) => String(l.msg));
  expect(warnings.filter((w) => /not a channel this service has/.test(w))).toEqual([]);

  const registry = [{ id: 'lee', name: 'Lee Chen', topics: ['billing'], teams: kit.people.lee.aadObjectId, channels: ['teams'] }];
  const put = await kit.call('PUT', '/api/v1/experts', registry);
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect(put.body[0]).toMatchObject({ id: 'lee', channels: ['teams'], reached_on: ['teams'] });
});
