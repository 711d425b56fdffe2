// Section: sustained POST /api/v1/requests throughput, expertq (1,000 experts) against a bare
// Fastify + zod + one-INSERT baseline, same autocannon settings, baseline first.
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { startBaseline, startExpertq } from './servers.js';

export const EXPERT_COUNT = 1000;
/** Target: expertq sustains at least half the baseline's throughput. */
export const MIN_RATIO = 0.5;

/** Caps high enough that every request is sent to an expert rather than held. */
const UNCAPPED = { max_open_asks_per_expert: 1_000_000, max_asks_per_expert_per_day: 1_000_000 };

async function measure(server, seconds) {
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    const stats = await server.stats();
    return { result, stats };
  } finally {
    await server.close();
  }
}

/**
 * Runs the section and prints its report. Returns { name, ok, summary } for run.js; `ok` is false
 * when the ratio misses the target or any request was answered non-2xx or failed.
 */
export async function benchSubmit() {
  const seconds = benchSeconds();
  const pool = topicPool();
  const experts = generateExperts(EXPERT_COUNT, pool);
  printHeading('POST /api/v1/requests: sustained submit throughput');
  console.log(
    `${EXPERT_COUNT} experts, ${pool.length} topics (2-3 per expert), ${CONNECTIONS} connections, ${seconds} s per target, ` +
      'caps 1,000,000 (no request held)',
  );

  console.log('running baseline (Fastify + zod body + 1 INSERT, WAL, synchronous=FULL) ...');
  const baseline = await measure(await startBaseline(), seconds);
  console.log('running expertq (real app, console transport discarded, log level warn) ...');
  const expertq = await measure(await startExpertq({ experts, defaults: UNCAPPED }), seconds);

  console.log('');
  printRows(LOAD_COLUMNS, [loadRow('baseline', baseline.result), loadRow('expertq', expertq.result)]);

  const s = expertq.stats;
  const total = expertq.result.total;
  const asked = s.requests.asked ?? 0;
  console.log(
    `\nexpertq state after the run: requests ${JSON.stringify(s.requests)}, asks ${JSON.stringify(s.asks)}, ` +
      `messages ${JSON.stringify(s.messages)}, console writes ${num(s.consoleWrites)}, warn+ log lines ${num(s.logLines)}`,
  );
  console.log(`baseline rows inserted: ${num(baseline.stats.rows)}`);

  const problems = [];
  for (const [name, { result }] of [['baseline', baseline], ['expertq', expertq]]) {
    if (result.non2xx > 0) problems.push(`${name}: ${result.non2xx} non-2xx responses, e.g. ${JSON.stringify(result.failures)}`);
    if (result.errors > 0) problems.push(`${name}: ${result.errors} connection errors (${result.timeouts} timeouts)`);
  }
  // Responses received can trail requests stored by the few in flight when autocannon stops.
  const storedRequests = Object.values(s.requests).reduce((a, b) => a + b, 0);
  if (asked !== storedRequests) problems.push(`expertq: only ${asked} of ${storedRequests} stored requests reached "asked"`);
  if (storedRequests < total) problems.push(`expertq: ${total} responses but only ${storedRequests} requests stored`);
  if ((s.messages.sent ?? 0) !== storedRequests) {
    problems.push(`expertq: ${s.messages.sent ?? 0} messages sent to experts for ${storedRequests} requests`);
  }

  const ratio = expertq.result.requestsPerSec / baseline.result.requestsPerSec;
  const pass = ratio >= MIN_RATIO;
  console.log(`\nnon-2xx: baseline ${num(baseline.result.non2xx)}, expertq ${num(expertq.result.non2xx)}${problems.length ? '' : ' (OK)'}`);
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  console.log(
    `throughput ratio expertq/baseline = ${num(expertq.result.requestsPerSec, 1)} / ${num(baseline.result.requestsPerSec, 1)} = ` +
      `${ratio.toFixed(3)}  (target: ratio >= ${MIN_RATIO})  ${pass ? 'PASS' : 'FAIL'}`,
  );

  return {
    name: 'submit',
    ok: pass && problems.length === 0,
    summary: `submit: ratio ${ratio.toFixed(3)} (>= ${MIN_RATIO}) ${pass ? 'PASS' : 'FAIL'}, expertq ${num(expertq.result.requestsPerSec, 1)} req/s ` +
      `p99 ${num(expertq.result.latencyP99, 2)} ms, non-2xx ${expertq.result.non2xx}${problems.length ? `, ${problems.length} problem(s)` : ''}`,
  };
}
