// Section: sustained POST /api/v1/requests throughput, expertq (1,000 experts) against a bare
// Fastify + zod + one-INSERT baseline, same autocannon settings, baseline first; then expertq with an
// LLM configured (a fake OpenAI-compatible endpoint answering in 200 ms) against expertq without one,
// alternated over two rounds in the same run: the LLM must never sit on the request path.
import { startFakeLlm } from '../examples/fake-llm.mjs';
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { startBaseline, startExpertq } from './servers.js';

export const EXPERT_COUNT = 1000;
/** Target: expertq sustains at least half the baseline's throughput. */
export const MIN_RATIO = 0.5;
/** Target (issue 9): with an LLM configured, submit throughput stays within 10% of the figure without. */
export const MIN_LLM_RATIO = 0.9;
/** The fake LLM's answer time, and the `llm.timeout` after which undrafted asks go out raw. */
const LLM_DELAY_MS = 200;
const LLM_TIMEOUT = '2s';
const ROUNDS = 2;

/** Caps high enough that every request is sent to an expert rather than held. */
export const UNCAPPED = { max_open_asks_per_expert: 1_000_000, max_asks_per_expert_per_day: 1_000_000 };

async function measure(server, seconds) {
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    const stats = await server.stats();
    return { result, stats };
  } finally {
    await server.close();
  }
}

/** expertq with a fake LLM: the server and the fake are closed together. */
async function measureWithLlm(experts, seconds) {
  const fake = await startFakeLlm({ delayMs: LLM_DELAY_MS });
  try {
    const run = await measure(await startExpertq({ experts, defaults: UNCAPPED, llm: { model: 'bench-model', base_url: fake.url, timeout: LLM_TIMEOUT } }), seconds);
    return { ...run, llmCalls: fake.calls() };
  } finally {
    await fake.close();
  }
}

/** What an expertq run must leave behind: every stored request asked, one message sent per request, all 2xx. */
export function problemsOf(name, { result, stats: s }) {
  const problems = [];
  if (result.non2xx > 0) problems.push(`${name}: ${result.non2xx} non-2xx responses, e.g. ${JSON.stringify(result.failures)}`);
  if (result.errors > 0) problems.push(`${name}: ${result.errors} connection errors (${result.timeouts} timeouts)`);
  if (!s) return problems;
  // Responses received can trail requests stored by the few in flight when autocannon stops.
  const stored = Object.values(s.requests).reduce((a, b) => a + b, 0);
  const asked = s.requests.asked ?? 0;
  if (asked !== stored) problems.push(`${name}: only ${asked} of ${stored} stored requests reached "asked"`);
  if (stored < result.total) problems.push(`${name}: ${result.total} responses but only ${stored} requests stored`);
  if ((s.messages.sent ?? 0) !== stored) problems.push(`${name}: ${s.messages.sent ?? 0} messages sent to experts for ${stored} requests`);
  return problems;
}

/** The mean throughput of several runs. */
export const mean = (runs) => runs.reduce((sum, r) => sum + r.result.requestsPerSec, 0) / runs.length;

/**
 * Runs the section and prints its report. Returns { name, ok, summary } for run.js; `ok` is false
 * when a ratio misses its target or any request was answered non-2xx or failed.
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
  const plain = [];
  const withLlm = [];
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}/${ROUNDS}: expertq without an LLM (real app, console transport discarded, log level warn) ...`);
    plain.push(await measure(await startExpertq({ experts, defaults: UNCAPPED }), seconds));
    console.log(`round ${round}/${ROUNDS}: expertq with an LLM (fake endpoint answering in ${LLM_DELAY_MS} ms, llm.timeout ${LLM_TIMEOUT}, concurrency 4) ...`);
    withLlm.push(await measureWithLlm(experts, seconds));
  }

  console.log('');
  printRows(LOAD_COLUMNS, [
    loadRow('baseline', baseline.result),
    ...plain.flatMap((run, i) => [loadRow(`expertq, no LLM #${i + 1}`, run.result), loadRow(`expertq, LLM #${i + 1}`, withLlm[i].result)]),
  ]);

  const s = plain[0].stats;
  console.log(
    `\nexpertq state after the first run: requests ${JSON.stringify(s.requests)}, asks ${JSON.stringify(s.asks)}, ` +
      `messages ${JSON.stringify(s.messages)}, console writes ${num(s.consoleWrites)}, warn+ log lines ${num(s.logLines)}`,
  );
  for (const [i, run] of withLlm.entries()) {
    console.log(
      `with an LLM #${i + 1}: questions ${JSON.stringify(run.stats.drafts)} (drafted, or asked raw: at llm.timeout, or at once with the model too far behind), ` +
        `${num(run.llmCalls)} LLM calls answered, requests ${JSON.stringify(run.stats.requests)}, messages ${JSON.stringify(run.stats.messages)}`,
    );
  }
  console.log(`baseline rows inserted: ${num(baseline.stats.rows)}`);

  const problems = [
    ...problemsOf('baseline', { result: baseline.result }),
    ...plain.flatMap((run, i) => problemsOf(`expertq #${i + 1}`, run)),
    ...withLlm.flatMap((run, i) => problemsOf(`expertq with an LLM #${i + 1}`, run)),
  ];
  const plainRps = mean(plain);
  const llmRps = mean(withLlm);
  const ratio = plainRps / baseline.result.requestsPerSec;
  const llmRatio = llmRps / plainRps;
  const pass = ratio >= MIN_RATIO;
  const llmPass = llmRatio >= MIN_LLM_RATIO;
  console.log(`\nnon-2xx: baseline ${num(baseline.result.non2xx)}, expertq ${num(plain.reduce((n, r) => n + r.result.non2xx, 0))}, ` +
    `with an LLM ${num(withLlm.reduce((n, r) => n + r.result.non2xx, 0))}${problems.length ? '' : ' (OK)'}`);
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  console.log(
    `throughput ratio expertq/baseline = ${num(plainRps, 1)} / ${num(baseline.result.requestsPerSec, 1)} = ` +
      `${ratio.toFixed(3)}  (target: ratio >= ${MIN_RATIO})  ${pass ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `throughput with an LLM / without = ${num(llmRps, 1)} / ${num(plainRps, 1)} req/s = ${llmRatio.toFixed(3)}  ` +
      `(target: >= ${MIN_LLM_RATIO}, means of ${ROUNDS} alternated runs)  ${llmPass ? 'PASS' : 'FAIL'}`,
  );

  return {
    name: 'submit',
    ok: pass && llmPass && problems.length === 0,
    summary: `submit: ratio ${ratio.toFixed(3)} (>= ${MIN_RATIO}) ${pass ? 'PASS' : 'FAIL'}, expertq ${num(plainRps, 1)} req/s ` +
      `p99 ${num(plain[0].result.latencyP99, 2)} ms; with an LLM ${num(llmRps, 1)} req/s, ratio ${llmRatio.toFixed(3)} (>= ${MIN_LLM_RATIO}) ` +
      `${llmPass ? 'PASS' : 'FAIL'}; non-2xx ${plain.reduce((n, r) => n + r.result.non2xx, 0) + withLlm.reduce((n, r) => n + r.result.non2xx, 0)}` +
      `${problems.length ? `, ${problems.length} problem(s)` : ''}`,
  };
}
