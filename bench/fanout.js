// Section: webhook fan-out. The real service (createService: store, outbox, dispatcher, timers) with
// 10 webhook consumers on one local receiver in a child process; N proposals are accepted at once and
// we time how fast the N × 10 signed deliveries reach the receiver. Baseline: the same number of plain
// unsigned POSTs of the same body, same concurrency, same receiver, from a simple loop.
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as pause } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createService } from '../dist/create-service.js';
import { createLogger } from '../dist/log.js';
import { num, printHeading, printRows } from './report.js';
import { discardStream } from './servers.js';

export const CONSUMER_COUNT = 10;
/** Target (issue 3): at least this many deliveries per second on this machine. */
export const MIN_DELIVERIES_PER_SEC = 1000;
/** Deadline for any one phase (deliveries, drain, baseline). */
const PHASE_TIMEOUT_MS = 120_000;
/** The dispatcher's default `maxInFlight` (src/delivery/delivery-dispatcher.ts), used if it cannot be read. */
const DEFAULT_MAX_IN_FLIGHT = 64;

/** Accepted proposals per run (env BENCH_FANOUT_PROPOSALS, default 500 → 5,000 deliveries). */
export function fanoutProposals() {
  const raw = process.env.BENCH_FANOUT_PROPOSALS;
  if (raw === undefined || raw === '') return 500;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_FANOUT_PROPOSALS must be a positive integer, got "${raw}"`);
  return n;
}

/** The receiver child (receiver-child.js): its URL, a wait for N requests under a path key, its counters. */
async function startReceiver() {
  const child = fork(fileURLToPath(new URL('./receiver-child.js', import.meta.url)));
  const listeners = new Set();
  let exited = null;
  child.on('message', (message) => listeners.forEach((listener) => listener(message)));
  const gone = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exited = signal ?? code;
      listeners.forEach((listener) => listener({ type: 'exit' }));
      resolve();
    }),
  );
  const next = (accept, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(() => reject(new Error(`receiver: timed out after ${timeoutMs} ms waiting for ${what}`))), timeoutMs);
      const listener = (message) => {
        if (message.type === 'exit') done(() => reject(new Error(`receiver exited (${exited}) while waiting for ${what}`)));
        else if (accept(message)) done(() => resolve(message));
      };
      const done = (settle) => {
        clearTimeout(timer);
        listeners.delete(listener);
        settle();
      };
      listeners.add(listener);
    });

  const { port } = await next((m) => m.type === 'listening', 10_000, 'it to listen');
  return {
    url: `http://127.0.0.1:${port}`,
    /** Resolves with the counter of `key` once it has `count` requests: { count, firstAt, lastAt, ... }. */
    waitFor(key, count, timeoutMs = PHASE_TIMEOUT_MS) {
      const reached = next((m) => m.type === 'reached' && m.key === key, timeoutMs, `${num(count)} requests under /${key}`);
      child.send({ type: 'wait', key, count });
      return reached;
    },
    async stats() {
      const answer = next((m) => m.type === 'stats', 10_000, 'its counters');
      child.send({ type: 'stats' });
      return (await answer).counters;
    },
    async stop() {
      if (exited === null) child.send({ type: 'stop' });
      await gone;
    },
  };
}

/** One plain POST through the default agent (as the dispatcher's postWebhook does), no signature. */
function post(url, body) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `count` POSTs of `body` to `url`, `concurrency` at a time; counts non-2xx answers and errors. */
async function plainPosts(url, count, concurrency, body) {
  let started = 0;
  let non2xx = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        try {
          const status = await post(url, body);
          if (status < 200 || status > 299) non2xx++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { non2xx, errors };
}

/** Polls `check` every 10 ms until it holds (bounded). */
async function until(check, what, timeoutMs = PHASE_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await pause(10);
  }
}

/** The embedded service on a temp dir: one expert who answers everything, private webhooks allowed. */
async function startService() {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-fanout-'));
  const configFile = join(dir, 'service.yaml');
  writeFileSync(
    configFile,
    stringify({
      org: { name: 'Bench Org', timezone: 'UTC' },
      server: { allow_private_webhooks: true },
      defaults: { max_open_asks_per_expert: 1_000_000, max_asks_per_expert_per_day: 1_000_000 },
      experts: [{ id: 'dana', name: 'Dana Smith', topics: ['billing policy'] }],
    }),
  );
  const logs = discardStream();
  const out = discardStream();
  const expertq = await createService({ config: configFile, out, logger: createLogger(logs, 'warn') });
  return {
    expertq,
    logs,
    async close() {
      await expertq.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the section and prints its report. Returns { name, ok, summary } for run.js; `ok` is false when
 * the throughput misses the target or any delivery is missing, duplicated, failed or left pending.
 */
export async function benchFanout() {
  const proposals = fanoutProposals();
  const expected = proposals * CONSUMER_COUNT;
  printHeading('webhook fan-out: accepted proposals delivered to 10 consumers');

  const receiver = await startReceiver();
  const svc = await startService();
  const { expertq } = svc;
  const service = expertq.service;
  const problems = [];
  let fanout;
  let baseline;
  let concurrency;
  try {
    for (let i = 0; i < CONSUMER_COUNT; i++) {
      const id = `hook-${String(i).padStart(2, '0')}`;
      await service.registerConsumer({ id, handles_kinds: ['answer'], delivery: { type: 'webhook', url: `${receiver.url}/fanout/${id}` } });
    }
    // The dispatcher's concurrency, for a baseline with the same number of requests in flight.
    concurrency = service.deliveries.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    console.log(
      `${num(proposals)} proposals x ${CONSUMER_COUNT} webhook consumers = ${num(expected)} signed deliveries to one local receiver ` +
        `(child process, answers 200 at once); dispatcher concurrency ${concurrency}`,
    );

    // Set-up (not timed): pending proposals, answered through the service like a transport would.
    const submitted = await Promise.all(
      Array.from({ length: proposals }, (_, i) =>
        service.submitRequest({
          consumer_id: 'bench-bot',
          topic: 'billing policy',
          question: `What is the billing policy for case ${i}?`,
          context: { asked_because: `fan-out benchmark case ${i}`, ticket: `T-${i}` },
        }),
      ),
    );
    const replies = await Promise.all(
      submitted.map((s, i) => service.receiveReply({ expert_id: 'dana', request_id: s.request_id, text: `Thirty days for case ${i}.` })),
    );
    const proposalIds = replies.map((r) => r.proposal_id);
    if (proposalIds.some((id) => !id)) throw new Error(`set-up: not every reply made a proposal: ${JSON.stringify(replies.find((r) => !r.proposal_id))}`);
    await service.idle();
    if ((await service.listDeliveries({ limit: 1 })).items.length > 0) throw new Error('set-up: deliveries exist before the first accept');

    // Warm the receiver and the connection pool with unmeasured plain POSTs.
    const sampleBody = JSON.stringify({ event: 'warmup', padding: 'x'.repeat(900) });
    await plainPosts(`${receiver.url}/warmup`, 1000, concurrency, sampleBody);
    await receiver.waitFor('warmup', 1000);

    console.log('running expertq fan-out (accept all, then wait for every delivery) ...');
    const delivered = receiver.waitFor('fanout', expected);
    const t0 = Date.now();
    await Promise.all(proposalIds.map((id) => expertq.accept(id, { decided_by: 'bench' })));
    const acceptedAt = Date.now();
    const reached = await delivered;
    await until(async () => (await service.listDeliveries({ state: 'pending', limit: 1 })).items.length === 0, 'no delivery is pending');
    await service.idle();
    const drainedAt = Date.now();
    fanout = {
      seconds: (reached.lastAt - t0) / 1000,
      acceptMs: acceptedAt - t0,
      firstMs: reached.firstAt - t0,
      drainMs: drainedAt - t0,
      count: reached.count,
    };

    const db = service.store.db;
    const states = Object.fromEntries(db.prepare('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state').all().map((r) => [r.state, r.n]));
    const attempts = db.prepare('SELECT SUM(attempts) AS n FROM deliveries').get().n;
    const eventBody = db.prepare("SELECT body FROM events WHERE type = 'proposal_accepted' LIMIT 1").get().body;
    console.log(`deliveries by state after the drain: ${JSON.stringify(states)}, attempts ${num(attempts)}, event body ${num(Buffer.byteLength(eventBody))} bytes`);
    if (states.delivered !== expected || Object.keys(states).length !== 1) problems.push(`expected ${expected} delivered deliveries, got ${JSON.stringify(states)}`);
    if (attempts !== expected) problems.push(`${attempts} attempts for ${expected} deliveries (retries happened)`);
    if (svc.logs.writes > 0) problems.push(`${svc.logs.writes} warn+ log lines from the service`);

    console.log('running baseline (plain unsigned POSTs of the same body, same concurrency, same receiver) ...');
    const baselineDone = receiver.waitFor('baseline', expected);
    const t1 = Date.now();
    const outcome = await plainPosts(`${receiver.url}/baseline`, expected, concurrency, eventBody);
    const baselineReached = await baselineDone;
    baseline = { seconds: (baselineReached.lastAt - t1) / 1000, count: baselineReached.count, ...outcome };
    if (outcome.non2xx || outcome.errors) problems.push(`baseline: ${outcome.non2xx} non-2xx, ${outcome.errors} errors`);

    const counters = await receiver.stats();
    const perConsumer = Object.values(counters.fanout.byPath);
    if (counters.fanout.count !== expected || perConsumer.length !== CONSUMER_COUNT || perConsumer.some((n) => n !== proposals)) {
      problems.push(`receiver got ${counters.fanout.count} fan-out requests, per consumer ${JSON.stringify(counters.fanout.byPath)}`);
    }
    if (counters.fanout.signed !== counters.fanout.count) problems.push(`${counters.fanout.count - counters.fanout.signed} fan-out requests without a signature`);
  } finally {
    await svc.close();
    await receiver.stop();
  }

  const rate = fanout.count / fanout.seconds;
  const baseRate = baseline.count / baseline.seconds;
  const ratio = rate / baseRate;
  console.log('');
  printRows(
    [
      { key: 'name', label: 'target', align: 'left' },
      { key: 'count', label: 'requests' },
      { key: 'seconds', label: 'seconds' },
      { key: 'rate', label: 'per second' },
    ],
    [
      { name: 'baseline (plain POST loop)', count: num(baseline.count), seconds: num(baseline.seconds, 3), rate: num(baseRate, 1) },
      { name: 'expertq fan-out (signed, outbox)', count: num(fanout.count), seconds: num(fanout.seconds, 3), rate: num(rate, 1) },
    ],
  );
  console.log(
    `\nexpertq: ${num(proposals)} accepts committed in ${num(fanout.acceptMs)} ms, first delivery received after ${num(fanout.firstMs)} ms, ` +
      `last after ${num(fanout.seconds * 1000)} ms; drained (every outcome recorded, nothing pending) after ${num(fanout.drainMs)} ms`,
  );
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  const pass = rate >= MIN_DELIVERIES_PER_SEC;
  console.log(
    `fan-out throughput = ${num(rate, 1)} deliveries/s from the first accept to the last delivery received ` +
      `(target: >= ${num(MIN_DELIVERIES_PER_SEC)} deliveries/s)  ${pass ? 'PASS' : 'FAIL'}`,
  );
  console.log(`ratio expertq/baseline = ${num(rate, 1)} / ${num(baseRate, 1)} = ${ratio.toFixed(3)}  (for information)`);

  return {
    name: 'fanout',
    ok: pass && problems.length === 0,
    summary:
      `fanout: ${num(rate, 1)} deliveries/s (>= ${num(MIN_DELIVERIES_PER_SEC)}) ${pass ? 'PASS' : 'FAIL'}, ${num(fanout.count)} deliveries to ${CONSUMER_COUNT} consumers, ` +
      `drain ${num(fanout.drainMs)} ms, baseline ratio ${ratio.toFixed(3)}${problems.length ? `, ${problems.length} problem(s)` : ''}`,
  };
}
