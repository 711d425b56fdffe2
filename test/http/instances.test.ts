import { afterEach, describe, expect, it } from 'vitest';
import { InstanceHeartbeat, registryHash } from '../../src/service/operations/instances.js';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('GET /api/v1/instances', () => {
  it('lists this instance once it has registered, live, as the one that answered; gone after a clean stop', async () => {
    t = await buildTestApp({ token: 'admin-token', credentials: [{ name: 'Riley', role: 'reviewer', token: 'riley-token' }] });
    const heartbeat = new InstanceHeartbeat(t.service);
    await heartbeat.start();

    const listed = await t.call('GET', '/api/v1/instances');
    expect(listed.status).toBe(200);
    expect(listed.body.warnings).toEqual([]);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: t.service.instanceId, pid: process.pid, live: true, this_instance: true, registry_hash: registryHash(t.service) }),
    ]);
    // Reviewers run the queue, not the deployment.
    expect((await t.callAs('riley-token', 'GET', '/api/v1/instances')).status).toBe(403);

    await heartbeat.stop();
    expect((await t.call('GET', '/api/v1/instances')).body.items).toEqual([]);
  });

  it('warns when live instances run different versions or registries, and stops counting one unseen for 30 s', async () => {
    t = await buildTestApp({ token: 'admin-token' });
    const heartbeat = new InstanceHeartbeat(t.service);
    await heartbeat.start();
    const now = t.clock.now();
    const other = { id: 'inst_other', host: 'node-2', pid: 7, version: '0.0.9', started_at: now, last_seen: now, registry_hash: 'ffffffffffff' };
    await t.store.transaction((tx) => tx.instances.upsert(other));

    const both = await t.call('GET', '/api/v1/instances');
    expect(both.body.items.map((i: { id: string; live: boolean }) => [i.id, i.live])).toEqual([
      [t.service.instanceId, true],
      ['inst_other', true],
    ]);
    expect(both.body.warnings).toEqual([
      expect.stringMatching(/^Instances run different versions \(0\.0\.9, \d/),
      'Instances run different expert registries: their config files differ (check every instance reads the same file).',
    ]);

    t.clock.advance(31_000);
    await t.store.transaction((tx) => tx.instances.upsert({ ...other, id: t.service.instanceId, host: 'vm', version: both.body.items[0].version, registry_hash: registryHash(t.service), last_seen: t.clock.now() }));
    const later = await t.call('GET', '/api/v1/instances');
    expect(later.body.items.find((i: { id: string }) => i.id === 'inst_other').live).toBe(false);
    expect(later.body.warnings).toEqual([]);
    await heartbeat.stop();
  });
});
