// Section: sustained POST /api/v1/requests throughput on PostgreSQL. A throwaway PostgreSQL (durable
// settings, as in production) serves, each from a fresh database: a bare Fastify + zod + one-INSERT
// baseline on a pg Pool, one expertq instance, and two expertq instances sharing one database with the
// load split over both. Every server runs in a process of its own; the load generators in others. The
// baseline and one instance alternate for ROUNDS rounds and the ratio is of their means: on 2 cores one
// 10-second run of either moves by up to a quarter from the next.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { startExpertqOnPg, startPostgres, startServerChild } from './pg-servers.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { EXPERT_COUNT, mean, MIN_RATIO, problemsOf, UNCAPPED } from './submit.js';

/** Connections in each pool: the baseline's and each expertq instance's (`storage.pool_size`). */
const POOL_SIZE = 10;
/** Rounds of baseline, then one instance. */
const ROUNDS = 3;
/** How long the outbox may take to send every ask after the load stops. */
const DRAIN_MS = 60_000;

/** Closes every server, even when one of them fails to. */
async function closeAll(servers) {
  const outcomes = await Promise.allSettled(servers.map((s) => s.close()));
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Two load generators at once, half the connections each; the figures summed (p99: the worse of the two). */
async function splitLoad(servers, seconds) {
  const share = Math.floor(CONNECTIONS / servers.length);
  const results = await Promise.all(
    servers.map((s, i) => runSubmitLoad({ url: s.url, seconds, connections: share, seed: 42 + i, firstBody: i * 1_000_000_000 })),
  );
  const sum = (key) => results.reduce((n, r) => n + r[key], 0);
  const worst = (key) => Math.max(...results.map((r) => r[key]));
  return {
    requestsPerSec: sum('requestsPerSec'),
    total: sum('total'),
    latencyP50: worst('latencyP50'),
    latencyP99: worst('latencyP99'),
    latencyMax: worst('latencyMax'),
    ok2xx: sum('ok2xx'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    failures: Object.assign({}, ...results.map((r) => r.failures)),
  };
}

/** Counts by status/state in the expertq database, once every stored request was asked and its ask sent (or DRAIN_MS passed). */
async function expertqStats(pg, url) {
  const count = async (sql) => Object.fromEntries((await pg.query(url, sql)).map((r) => [r.k, Number(r.n)]));
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    const requests = await count('SELECT status AS k, COUNT(*) AS n FROM requests GROUP BY status');
    const messages = await count('SELECT state AS k, COUNT(*) AS n FROM messages GROUP BY state');
    const stored = Object.values(requests).reduce((a, b) => a + b, 0);
    if ((requests.asked === stored && messages.sent === stored) || Date.now() > deadline) return { requests, messages };
    await setTimeout(200);
  }
}

/** Starts `count` expertq instances on a fresh database, loads them together, counts, and stops them. */
export async function measureExpertq(pg, { database, count, dir, experts, seconds, rollups = true }) {
  const url = await pg.createDatabase(database);
  const servers = [];
  try {
    // One after the other: the first migrates the fresh database, the others find it done.
    for (let i = 0; i < count; i++) {
      servers.push(await startExpertqOnPg(`expertq #${i + 1}`, { dir, experts, defaults: UNCAPPED, url, poolSize: POOL_SIZE, rollups }));
    }
    const result = await splitLoad(servers, seconds);
    return { result, stats: await expertqStats(pg, url) };
  } finally {
    await closeAll(servers);
  }
}

async function measureBaseline(pg, seconds, database) {
  const url = await pg.createDatabase(database);
  const server = await startServerChild('baseline', { kind: 'baseline', url, poolSize: POOL_SIZE });
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    const [{ n }] = await pg.query(url, 'SELECT COUNT(*) AS n FROM requests');
    return { result, rows: Number(n) };
  } finally {
    await server.close();
  }
}

/**
 * Runs the section and prints its report. Returns { name, ok, summary } for run.js; `ok` is false when
 * one instance misses half the baseline's throughput or any request was answered non-2xx or failed.
 */
export async function benchPostgres() {
  const seconds = benchSeconds();
  const experts = generateExperts(EXPERT_COUNT, topicPool());
  printHeading('POST /api/v1/requests on PostgreSQL: one and two instances');
  console.log(
    `${EXPERT_COUNT} experts, ${CONNECTIONS} connections in all, ${seconds} s per target, pool ${POOL_SIZE} per process, ` +
      'PostgreSQL with fsync=on, synchronous_commit=on, full_page_writes=on, a fresh database per target',
  );
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-pgcfg-'));
  let pg = null;
  try {
    pg = await startPostgres();
    const baselines = [];
    const ones = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}: baseline (Fastify + zod body + 1 INSERT through a pg Pool) ...`);
      baselines.push(await measureBaseline(pg, seconds, `bench_baseline_${round}`));
      console.log(`round ${round}/${ROUNDS}: one expertq instance ...`);
      ones.push(await measureExpertq(pg, { database: `bench_one_${round}`, count: 1, dir, experts, seconds }));
    }
    console.log(`running two expertq instances on one database (${CONNECTIONS / 2} connections to each) ...`);
    const two = await measureExpertq(pg, { database: 'bench_two', count: 2, dir, experts, seconds });
    return report({ baselines, ones, two });
  } finally {
    try {
      await pg?.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function report({ baselines, ones, two }) {
  console.log('');
  printRows(LOAD_COLUMNS, [
    ...baselines.flatMap((baseline, i) => [loadRow(`baseline (pg Pool) #${i + 1}`, baseline.result), loadRow(`expertq, 1 instance #${i + 1}`, ones[i].result)]),
    loadRow('expertq, 2 instances (sum)', two.result),
  ]);
  console.log(`
baseline rows inserted: ${baselines.map((b) => num(b.rows)).join(', ')}`);
  for (const [i, one] of ones.entries()) {
    console.log(`1 instance #${i + 1}: requests ${JSON.stringify(one.stats.requests)}, messages ${JSON.stringify(one.stats.messages)}`);
  }
  console.log(`2 instances: requests ${JSON.stringify(two.stats.requests)}, messages ${JSON.stringify(two.stats.messages)}`);

  const problems = [
    ...baselines.flatMap((baseline, i) => problemsOf(`baseline #${i + 1}`, { result: baseline.result })),
    ...ones.flatMap((one, i) => problemsOf(`1 instance #${i + 1}`, one)),
    ...problemsOf('2 instances', two),
  ];
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  const non2xx = [...baselines, ...ones, two].reduce((n, r) => n + r.result.non2xx, 0);
  const baselineRps = mean(baselines);
  const oneRps = mean(ones);
  const ratio = oneRps / baselineRps;
  const scale = two.result.requestsPerSec / oneRps;
  const pass = ratio >= MIN_RATIO;
  const rounds = ones.map((one, i) => (one.result.requestsPerSec / baselines[i].result.requestsPerSec).toFixed(3)).join(', ');
  console.log(
    `\nthroughput ratio 1 instance / baseline = ${num(oneRps, 1)} / ${num(baselineRps, 1)} = ` +
      `${ratio.toFixed(3)}  (target: ratio >= ${MIN_RATIO}, means of ${ROUNDS} alternated runs; each round: ${rounds})  ${pass ? 'PASS' : 'FAIL'}`,
  );
  console.log(`throughput ratio 2 instances / 1 instance = ${num(two.result.requestsPerSec, 1)} / ${num(oneRps, 1)} = ${scale.toFixed(3)}`);
  return {
    name: 'postgres',
    ok: pass && non2xx === 0 && problems.length === 0,
    summary:
      `postgres: 1 instance / baseline ${ratio.toFixed(3)} (>= ${MIN_RATIO}) ${pass ? 'PASS' : 'FAIL'}, ` +
      `baseline ${num(baselineRps, 1)} req/s, 1 instance ${num(oneRps, 1)} req/s p99 ${num(Math.max(...ones.map((o) => o.result.latencyP99)), 2)} ms, ` +
      `2 instances ${num(two.result.requestsPerSec, 1)} req/s p99 ${num(two.result.latencyP99, 2)} ms (x${scale.toFixed(2)}); non-2xx ${non2xx}` +
      `${problems.length ? `, ${problems.length} problem(s)` : ''}`,
  };
}
