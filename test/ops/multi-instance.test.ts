import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seededRandom } from '../../src/core/seeded-random.js';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';
import { InstancePool, type Json } from '../support/instance-pool.js';
import { RecordingReceiver, type Receipt } from '../support/recording-receiver.js';
import { until } from '../support/until.js';
import { expectedEvents, missingWrites, peakOpenAsks, undelivered, unexplainedRepeatAsks, webhookProblems, type Seen } from './multi-instance-checks.js';
import { newAcked, TWO_PERSON_REVIEWERS, TWO_PERSON_TOPIC, Workload, type Item, type Plan } from './multi-instance-workload.js';

/**
 * Three `expertq serve` processes on one PostgreSQL database, driven round-robin through the HTTP
 * API (submits, dedup races across instances, replies, accepts, rejects, send-backs) while two of
 * them are killed with SIGKILL at seeded moments and restarted. Afterwards everything an instance
 * acknowledged is there, whichever instance is asked; a dedup key made one request; no expert had
 * more open asks than the cap; every consumer got every event, each under one webhook-id. Refunds fall
 * under a two-person review rule: their two accepts are cast at once on two instances and make one
 * decision and one event per consumer. A long
 * poll on one instance wakes within a second of an accept made on another. MULTI_SEED replays a
 * run (the seed is printed).
 */

const INSTANCES = 3;
const ITEMS = 60;
const PARALLEL = 6;
const CAP = 2;
const RACE_EVERY = 4;
const PLANS: Plan[] = ['accept', 'accept', 'reject', 'return'];
const EXPERTS = [
  { id: 'ana', name: 'Ana Garcia', topics: ['billing'] },
  { id: 'kofi', name: 'Kofi Mensah', topics: ['payroll'] },
  { id: 'mia', name: 'Mia Berg', topics: ['refunds'] },
];
const CONSUMERS = ['ledger', 'flaky'] as const;
/** Kill moments: the n-th kill once this fraction of the expected acknowledged writes is reached. */
const KILL_WINDOWS: Array<[number, number]> = [
  [0.15, 0.35],
  [0.5, 0.7],
];
/**
 * The slowest event: claimed by an instance that is then killed (taken over when its lease runs out,
 * `work_lease` below), refused by the flaky endpoint, retried after the second backoff step
 * (30 s ± 20%): about 38 s after the kill.
 */
const SETTLE_MS = 60_000;
const DB_NAME = `eq_multi_${process.pid}`;

let dir: string;
let databaseUrl: string;
let pool: InstancePool | undefined;
const receivers = new Map<string, RecordingReceiver>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-multi-'));
  const url = await createTestDatabase(DB_NAME);
  databaseUrl = url;
  const configFile = join(dir, 'service.yaml');
  writeFileSync(
    configFile,
    stringify({
      org: { name: 'Multi Instance Org', timezone: 'UTC' },
      // A short work lease: a killed instance's deliveries are taken over 2 s after the kill.
      server: { host: '127.0.0.1', tick_ms: 200, allow_private_webhooks: true, work_lease: '2s' },
      storage: { url_env: 'EXPERTQ_MULTI_DB', pool_size: 4 },
      defaults: { max_open_asks_per_expert: CAP, max_asks_per_expert_per_day: 1_000_000 },
      experts: EXPERTS,
      // Refunds need two people's accepts (cast at once on two instances); one rejection rejects.
      review: { rules: [{ name: 'two-person refunds', match: { topics: [TWO_PERSON_TOPIC] }, reviewers: [...TWO_PERSON_REVIEWERS], approvals: 2 }] },
    }),
  );
  const seen = new Set<string>();
  receivers.set('ledger', new RecordingReceiver('ledger'));
  // The flaky endpoint refuses the first delivery of each event, and takes it when it comes again.
  receivers.set('flaky', new RecordingReceiver('flaky', (_, headers) => (seen.has(String(headers['webhook-id'])) ? 200 : (seen.add(String(headers['webhook-id'])), 500))));
  pool = await InstancePool.start(configFile, INSTANCES, { EXPERTQ_MULTI_DB: url });
  for (const id of CONSUMERS) {
    const hook = await receivers.get(id)!.start();
    await pool.ok(0, 'POST', '/consumers', { id, handles_kinds: ['answer'], delivery: { type: 'webhook', url: hook } });
  }
});

afterAll(async () => {
  await pool?.killAll();
  await Promise.all([...receivers.values()].map((r) => r.stop().catch(() => undefined)));
  await dropTestDatabase(DB_NAME);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('several instances on one PostgreSQL database', () => {
  it('lose nothing acknowledged, keep dedup and caps, and deliver every event through two kill -9s', async () => {
    const p = pool!;
    const seed = process.env.MULTI_SEED ? Number(process.env.MULTI_SEED) : Math.floor(Math.random() * 2 ** 31);
    const rand = seededRandom(seed);
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const items: Item[] = Array.from({ length: ITEMS }, (_, i) => {
      const expert = EXPERTS[Math.floor(rand() * EXPERTS.length)]!;
      return { key: `item-${i}`, expert: expert.id, topic: expert.topics[0]!, plan: PLANS[i % PLANS.length]!, race: i % RACE_EVERY === 0 };
    });
    const returns = items.filter((i) => i.plan === 'return').length;
    const expectedWrites = ITEMS + 2 * (ITEMS + returns); // submits, replies, decisions
    const thresholds = KILL_WINDOWS.map(([lo, hi]) => Math.floor(expectedWrites * (lo + rand() * (hi - lo))));
    const first = Math.floor(rand() * INSTANCES);
    const victims = [first, (first + 1 + Math.floor(rand() * (INSTANCES - 1))) % INSTANCES];
    const log = [`seed ${seed} (MULTI_SEED=${seed} replays it): kill instance ${victims[0]} after write #${thresholds[0]}, instance ${victims[1]} after write #${thresholds[1]}`];
    console.log(`multi-instance test: ${log[0]}`);
    const diag = () => `${log.join('\n')}\n${p.diagnostics()}`;

    // ---- the workload, with the killer watching the count of acknowledged writes ----
    const acked = newAcked();
    const work = new Workload(p, acked);
    let kills = 0;
    const restarts: Array<Promise<void>> = [];
    const restartErrors: Error[] = [];
    // Each kill happens at its drawn moment, even while the other victim is still restarting.
    work.onWrite = () => {
      if (kills >= thresholds.length || work.writes < thresholds[kills]!) return;
      const victim = victims[kills]!;
      const at = `kill #${kills + 1} of instance ${victim} at ${elapsed()} after ${work.writes} writes`;
      kills++;
      restarts.push(
        (async () => {
          await p.servers[victim]!.kill9();
          await p.servers[victim]!.start().then(
            () => log.push(`${at}; serving again at ${elapsed()}`),
            (error: Error) => restartErrors.push(error),
          );
        })(),
      );
    };
    // Meanwhile the experts' open-ask counts are read again and again, each a committed state.
    const counted = new Map<string, number>();
    let working = true;
    const sampler = (async () => {
      while (working) {
        const experts = await p.read('GET', '/experts').catch(() => []);
        for (const e of experts) counted.set(e.id, Math.max(counted.get(e.id) ?? 0, e.open_asks));
      }
    })();
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < ITEMS) await work.run(items[next++]!);
      }),
    );
    working = false;
    await sampler;
    log.push(`most open asks GET /experts showed: ${[...counted].map(([e, n]) => `${e} ${n}`).join(', ')}`);
    expect([...counted].filter(([, n]) => n > CAP), `GET /experts showed more open asks than ${CAP}`).toEqual([]);
    expect(kills, 'kills during the workload').toBe(thresholds.length);
    await Promise.all(restarts);
    expect(restartErrors).toEqual([]);
    log.push(`${ITEMS} items decided at ${elapsed()}: ${work.writes} acknowledged writes, ${work.interrupted} calls met a killed instance`);

    // ---- cross-instance wake-up: a long poll on one instance, the accept on another ----
    const wakeups: number[] = [];
    for (let s = 0; s < INSTANCES; s++) {
      // An expert whose topic one accept decides (not the two-person rule's).
      const expert = EXPERTS.filter((e) => e.topics[0] !== TWO_PERSON_TOPIC)[s % 2]!;
      const item: Item = { key: `wake-${s}`, expert: expert.id, topic: expert.topics[0]!, plan: 'accept', race: false };
      const request = await work.run(item, 'proposed');
      const waiter = p.call(s, 'GET', `/requests/${item.requestId}/wait?timeout_s=10`).then((answer) => ({ answer, at: Date.now() }));
      await p.ok(s, 'GET', `/requests/${item.requestId}`); // the wait is on its way before the accept
      const acceptStart = Date.now();
      await p.ok((s + 1) % INSTANCES, 'POST', `/proposals/${request.proposal_id}/accept`, { decided_by: 'wake-test' });
      const acceptDone = Date.now();
      acked.decisions.set(request.proposal_id, 'accepted');
      const woke = await waiter;
      expect(woke.answer.body.status, `the wait on instance ${s} answers with the accept`).toBe('accepted');
      expect(woke.at).toBeGreaterThanOrEqual(acceptStart);
      wakeups.push(woke.at - acceptDone);
      items.push(item);
    }
    log.push(`long polls woke ${wakeups.map((w) => `${w} ms`).join(', ')} after an accept on another instance`);
    expect(Math.max(...wakeups), 'a long poll wakes within 1 s of an accept on another instance').toBeLessThan(1_000);

    // ---- settle: every expected event reached both consumers, nothing left to deliver ----
    const seen = new Map<string, Seen>();
    for (const id of new Set([...acked.requests, ...items.map((i) => i.requestId!)])) {
      seen.set(id, { request: await p.read('GET', `/requests/${id}`), audit: await p.read('GET', `/audit?request_id=${id}`) });
    }
    const expected = expectedEvents(seen.values());
    const receipts = () => new Map<string, Receipt[]>(CONSUMERS.map((c) => [c, receivers.get(c)!.receipts]));
    // A timeout names what is missing and the deliveries still pending before the instances' logs.
    const settle = async (check: () => boolean | Promise<boolean>, what: string, detail: () => string) => {
      try {
        await until(check, SETTLE_MS, what, detail);
      } catch (error) {
        const pending = await p.readAll('/deliveries?state=pending').catch((e: Error) => e.message);
        throw new Error(`${(error as Error).message}\npending deliveries: ${JSON.stringify(pending, null, 1)}\n${diag()}`, { cause: error });
      }
    };
    await settle(() => undelivered(expected, receipts()).length === 0, 'every consumer got every event', () => undelivered(expected, receipts()).join('\n'));
    await settle(async () => (await p.read('GET', '/deliveries?state=pending&limit=1')).items.length === 0, 'no delivery is pending', () => '');
    log.push(`every event delivered to both consumers at ${elapsed()}`);
    for (const id of seen.keys()) seen.set(id, { request: await p.read('GET', `/requests/${id}`), audit: await p.read('GET', `/audit?request_id=${id}`) });

    // ---- what was acknowledged is stored ----
    const missingRequests = [...acked.requests].filter((id) => !seen.get(id)?.request);
    expect(missingRequests, 'acknowledged submits without a request').toEqual([]);
    const proposals = new Map<string, Json>();
    const proposalIds = new Set([...acked.replies.map((r) => r.proposalId), ...acked.decisions.keys()]);
    for (const id of proposalIds) proposals.set(id, await p.read('GET', `/proposals/${id}`));
    expect(missingWrites(seen, proposals, acked.replies, acked.decisions), 'acknowledged replies and decisions not stored').toEqual([]);
    // Read from the database: it does not check an ask's request itself (the transactions writing asks do).
    expect(await asksWithoutRequest(databaseUrl), 'asks whose request is not stored').toEqual([]);

    // ---- one request per dedup key, whichever instance answered ----
    const mine = await p.readAll('/requests?consumer_id=multi-bot');
    const perKey = new Map<string, string[]>();
    for (const r of mine) perKey.set(r.dedup_key, [...(perKey.get(r.dedup_key) ?? []), r.id]);
    expect([...perKey].filter(([, ids]) => ids.length !== 1), 'dedup keys with more than one request').toEqual([]);
    expect(perKey.size).toBe(items.length);
    expect([...acked.byKey].filter(([, ids]) => ids.size !== 1), 'dedup keys answered with several request ids').toEqual([]);
    const raced = items.filter((i) => i.race).length;
    expect([...acked.byKey].filter(([key]) => items.find((i) => i.key === key)?.race)).toHaveLength(raced);

    // ---- asks: no unexplained repeat, never above the cap ----
    expect(unexplainedRepeatAsks([...seen.values()]), 'requests asking one expert twice with no escalation or send-back').toEqual([]);
    const { peak, problems } = peakOpenAsks([...seen.values()]);
    expect(problems).toEqual([]);
    log.push(`peak open asks: ${[...peak].map(([e, v]) => `${e} ${v.count}`).join(', ')} (cap ${CAP})`);
    // Known to fail now and then: an ask's sent_at (and the asked/replied audit times) is the moment its
    // operation began, before it waited for the expert's lock, so an ask placed after another was
    // answered can look as if it was out before that answer. GET /experts above never showed the cap
    // exceeded; the recorded history does.
    expect([...peak].filter(([, v]) => v.count > CAP), `experts above max_open_asks_per_expert (${CAP}) in the asks' recorded times`).toEqual([]);
    expect([...seen.values()].every((s) => s.request.status === 'accepted' || s.request.status === 'rejected')).toBe(true);

    // ---- webhooks: at least once per (consumer, event), one webhook-id per event, the flaky one retried ----
    expect(webhookProblems(expected, receipts())).toEqual([]);
    const flaky = receivers.get('flaky')!.receipts;
    expect(flaky.filter((r) => r.status === 500).length, 'the flaky endpoint refused each event once').toBe(expected.size);
    expect((await p.read('GET', '/deliveries?state=dead&limit=10')).items).toEqual([]);

    for (const [i, server] of p.servers.entries()) expect(server.errors, `error-level log lines of instance ${i}`).toEqual([]);
    expect(p.servers.map((s) => s.starts).reduce((a, b) => a + b)).toBe(INSTANCES + thresholds.length);
    console.log(`multi-instance test\n  ${log.join('\n  ')}`);
  }, 90_000);
});

/** The ids of stored asks whose request is not stored. */
async function asksWithoutRequest(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT a.id FROM asks a LEFT JOIN requests r ON r.id = a.request_id WHERE r.id IS NULL ORDER BY a.id');
    return rows.map((r: { id: string }) => r.id);
  } finally {
    await client.end();
  }
}
