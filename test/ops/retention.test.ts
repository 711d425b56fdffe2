import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { nextBatchSize, Pruner } from '../../src/service/operations/pruner.js';
import { buildTestApp, EXAMPLE_EXPERTS, submitBody, type TestApp } from '../support/build-test-app.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const DAY = 86_400_000;
let t: TestApp;
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await t?.close();
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

/** What the store still holds of these requests, through its read methods. */
const held = async (ids: readonly string[]) => {
  const count = async (read: (id: string) => Promise<unknown[]>) => (await Promise.all(ids.map(read))).flat().length;
  return {
    requests: await count(async (id) => ((await t.store.requests.get(id)) ? [id] : [])),
    proposals: await count((id) => t.store.proposals.listFor(id)),
    audit: await count((id) => t.store.requests.audit(id)),
  };
};
const eventsOf = async (ids: readonly string[]) => (await Promise.all(ids.map((id) => t.store.outbox.events(id)))).flat().length;
const deliveryStates = async () => (await t.store.outbox.deliveries({ limit: 1000 })).map((d) => d.state);

/** A webhook consumer, `accepted` answered requests (delivered), one still asked, one proposed. */
async function history(accepted: number): Promise<{ acceptedIds: string[]; asked: string; proposed: string }> {
  const r = new WebhookReceiver();
  receivers.push(r);
  await t.call('POST', '/api/v1/consumers', { id: 'ledger', handles_kinds: ['answer'], delivery: { type: 'webhook', url: await r.start() } });
  const acceptedIds: string[] = [];
  for (let i = 0; i < accepted; i++) {
    const id = (await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'ledger', question: `Question ${i}?`, target_experts: ['dana'] }))).body.request_id;
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: `Answer ${i}.`, request_id: id });
    await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'alice' });
    acceptedIds.push(id);
  }
  const asked = (await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'ledger', target_experts: ['lee'], routing_policy: { give_up_after: '300d', escalation_after: '300d' } }))).body.request_id;
  const proposed = (await t.call('POST', '/api/v1/requests', submitBody({ consumer_id: 'ledger', target_experts: ['sam'], routing_policy: { give_up_after: '300d' } }))).body.request_id;
  await t.call('POST', '/api/v1/replies', { expert_id: 'sam', text: 'Later.', request_id: proposed });
  return { acceptedIds, asked, proposed };
}

describe('retention', () => {
  it('storage.retention prunes delivered deliveries, sent messages and event bodies, in batches; requests, proposals and audit stay', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true }, defaults: { max_asks_per_expert_per_day: 50 }, storage: { retention: '90d' } } });
    const { acceptedIds, asked, proposed } = await history(7);
    const all = [...acceptedIds, asked, proposed];
    expect(await deliveryStates()).toEqual(Array(7).fill('delivered'));
    const before = await held(all);

    t.clock.advance(89 * DAY);
    const pruner = new Pruner(t.store, { retention: 90 * DAY, retentionRequests: null }, t.clock, t.service.log, 3);
    expect(await pruner.run()).toMatchObject({ deliveries: 0, messages: 0, events: 0 });

    t.clock.advance(2 * DAY);
    const preview = await pruner.preview();
    expect(preview).toMatchObject({ deliveries: 7, requests: 0, proposals: 0, audit: 0 });
    const pruned = await pruner.run();
    expect(pruned).toMatchObject({ deliveries: 7, events: 14, requests: 0, proposals: 0, audit: 0 });
    expect(pruned.messages).toBeGreaterThanOrEqual(7);
    expect(await deliveryStates()).toEqual([]);
    expect(await eventsOf([asked, proposed])).toBeGreaterThan(0);
    expect(await eventsOf(acceptedIds)).toBe(0);
    // The ask still open keeps its message; everything a reviewer or auditor reads is still there.
    expect((await t.store.outbox.messages(asked)).length).toBeGreaterThan(0);
    expect(await held(all)).toEqual(before);
    const request = await t.call('GET', `/api/v1/requests/${acceptedIds[0]}`);
    expect(request.body.status).toBe('accepted');
    expect((await t.call('GET', `/api/v1/audit?request_id=${acceptedIds[0]}`)).body.length).toBeGreaterThan(3);
    expect(await pruner.run()).toMatchObject({ deliveries: 0, messages: 0, events: 0 });
  });

  it.each([
    // [last size, how long it took in ms, next size]
    [50, 40, 12],
    [500, 1000, 10],
    [50, 5, 100],
    [400, 1, 500],
    [100, 0, 200],
    [10, 10, 10],
    // Never above the largest batch, even when that is below the smallest size.
    [2, 25, 2],
  ])('a batch of %d that took %d ms, aiming at 10 ms, is followed by one of %d', (size, ms, next) => {
    expect(nextBatchSize(size, ms, 10, size === 2 ? 2 : 500)).toBe(next);
  });

  it('storage.retention_requests also removes finished requests with everything of theirs; open ones stay', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true }, defaults: { max_asks_per_expert_per_day: 50 }, storage: { retention: '30d', retention_requests: '180d' } } });
    const { acceptedIds, asked, proposed } = await history(4);
    t.clock.advance(181 * DAY);
    const pruner = new Pruner(t.store, { retention: 30 * DAY, retentionRequests: 180 * DAY }, t.clock, t.service.log, 2);
    expect(await pruner.preview()).toMatchObject({ requests: 4, proposals: 4 });
    const pruned = await pruner.run();
    expect(pruned).toMatchObject({ requests: 4, proposals: 4 });
    expect(pruned.audit).toBeGreaterThan(4 * 3);
    expect((await t.call('GET', `/api/v1/requests/${acceptedIds[0]}`)).status).toBe(404);
    expect((await t.call('GET', `/api/v1/audit?request_id=${acceptedIds[0]}`)).status).toBe(404);
    expect((await t.store.asks.listFor(acceptedIds[0]!))).toEqual([]);
    for (const open of [asked, proposed]) expect((await t.call('GET', `/api/v1/requests/${open}`)).body.status).toMatch(/asked|proposed/);
    expect((await t.call('GET', '/api/v1/proposals?status=pending')).body).toHaveLength(1);
    // The service goes on: the pending proposal can still be accepted and delivered.
    const pending = (await t.call('GET', '/api/v1/proposals?status=pending')).body[0];
    expect((await t.call('POST', `/api/v1/proposals/${pending.id}/accept`, { decided_by: 'alice' })).body.status).toBe('accepted');
  });

  it.each([
    [{ retention: '12h' }, 'storage.retention'],
    [{ retention: 'forever' }, 'storage.retention'],
    [{ retention_requests: '20y' }, 'storage.retention_requests'],
  ])('refuses %j at start with the key named', async (storage, key) => {
    await expect(buildTestApp({ config: { storage } })).rejects.toThrow(key);
  });
});

describe('expertq prune', () => {
  it('--dry-run prints what would go and removes nothing; without it, removes it', async () => {
    t = await buildTestApp({ config: { server: { allow_private_webhooks: true } } });
    t.clock.set('2025-01-15T10:00:00Z'); // long before the real now the CLI uses
    const { acceptedIds, asked, proposed } = await history(3);
    const configFile = t.configFile;
    // The same database: the default storage.path is expertq.db beside the configuration file.
    writeFileSync(configFile, stringify({ org: { name: 'Acme' }, experts: EXAMPLE_EXPERTS, storage: { retention: '90d' } }));
    const env = cleanEnv();
    const dry = await runCli(['prune', '--dry-run', '--config', configFile], { env });
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Outbox rows: before \d{4}-\d\d-\d\dT.*Z; finished requests: kept \(no retention set\)\.$/m);
    expect(dry.stdout).toMatch(/^ +3 {2}deliveries \(delivered\)$/m);
    expect(dry.stdout).toMatch(/^ +6 {2}event bodies$/m);
    expect(dry.stdout).toMatch(/rows would be removed\.$/m);
    expect(await deliveryStates()).toHaveLength(3);

    const real = await runCli(['prune', '--config', configFile], { env });
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/^ +3 {2}deliveries \(delivered\)$/m);
    expect(real.stdout).toMatch(/rows removed\.$/m);
    expect(await deliveryStates()).toEqual([]);
    expect((await held([...acceptedIds, asked, proposed])).requests).toBe(5);

    const again = await runCli(['prune', '--dry-run', '--config', configFile], { env });
    expect(again.stdout).toMatch(/^Nothing would be removed\.$/m);
  });

  it('says so when no retention is set', async () => {
    t = await buildTestApp();
    const res = await runCli(['prune', '--config', t.configFile], { env: cleanEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`expertq: Neither storage.retention nor storage.retention_requests is set in ${t.configFile}: nothing is ever pruned.\n`);
  });
});
