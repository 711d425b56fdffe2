// The history bench's report: the slow-class table, then one table of every figure beside its target
// with PASS/FAIL (as bench/report.js's tables do for the main bench), then a one-line summary.
import { num, printRows } from '../report.js';
import { MAX_IDLE_TICK_MS } from './tick.js';
import { MIN_SUBMIT_RATIO, SUBMIT_CONNECTIONS, SUBMIT_SECONDS, SUBMIT_WARM_SECONDS } from './submit-rate.js';
import { MAX_PRUNE_MS, PRUNING_P99_MS, describeCounts } from './first-prune.js';
import { MAX_START_MS } from './startup.js';

const ms = (value, decimals = 2) => (value === null || value === undefined ? '—' : `${num(value, decimals)} ms`);
const verdict = (ok) => (ok === null ? '' : ok ? 'PASS' : 'FAIL');

/** Prints the 1 ms route's figures under each slow class. */
export function printUnderLoad(title, rows) {
  console.log(`\n${title}: GET /requests/{id} (sampled ids) while a slow class runs`);
  printRows(
    [
      { key: 'name', label: 'while', align: 'left' },
      { key: 'p50', label: 'p50 ms' },
      { key: 'p99', label: 'p99 ms' },
      { key: 'n', label: 'calls' },
      { key: 'target', label: 'target', align: 'left' },
      { key: 'verdict', label: '', align: 'left' },
      { key: 'note', label: 'slow class', align: 'left' },
    ],
    rows.map((r) => ({ ...r, p50: r.p50 === null ? '—' : num(r.p50, 2), p99: r.p99 === null ? '—' : num(r.p99, 2), n: num(r.n), target: `p99 <= ${r.target} ms`, verdict: verdict(r.ok) })),
  );
}

/**
 * Every figure of one engine's run beside its target: { what, figure, target, ok (null: a sizing
 * figure with no target) }. `m` is what measure.js gathered.
 */
export function targetRows(m) {
  const rows = [];
  const routesOk = m.routes.filter((r) => r.ok).length;
  rows.push({ what: 'read routes p99 (table above)', figure: `${routesOk}/${m.routes.length} within target`, target: '<= 20 ms (/experts <= 5 ms)', ok: routesOk === m.routes.length });
  const metrics = m.routes.find((r) => r.name === 'GET /metrics');
  rows.push({ what: 'GET /metrics p99', figure: ms(metrics.p99), target: `<= ${metrics.target} ms`, ok: metrics.ok });
  rows.push({ what: 'idle tick (median of 20)', figure: `${ms(m.tick.p50, 3)} (max ${ms(m.tick.max, 2)}, ${m.tick.work} due)`, target: `<= ${MAX_IDLE_TICK_MS} ms`, ok: m.tick.p50 <= MAX_IDLE_TICK_MS });
  const ratio = m.submits.requestsPerSec / m.submitsEmpty.requestsPerSec;
  rows.push({
    what: `submit throughput (${SUBMIT_CONNECTIONS} clients, ${SUBMIT_SECONDS} s after ${SUBMIT_WARM_SECONDS} s)`,
    figure: `${num(m.submits.requestsPerSec, 0)} req/s, p99 ${ms(m.submits.latencyP99, 0)}; empty db ${num(m.submitsEmpty.requestsPerSec, 0)} req/s: ${ratio.toFixed(2)}x`,
    target: `>= ${MIN_SUBMIT_RATIO}x empty`,
    ok: ratio >= MIN_SUBMIT_RATIO,
  });
  const prune = m.prune;
  rows.push({
    what: `first prune (retention ${prune.days}d)`,
    figure: prune.ms === null ? 'not done' : `${num(prune.ms / 1000, 1)} s, ${describeCounts(prune.counts)}`,
    target: `<= ${MAX_PRUNE_MS / 60_000} min`,
    ok: prune.ms !== null && prune.ms <= MAX_PRUNE_MS,
  });
  for (const r of m.underLoad) rows.push({ what: `1 ms route p99: ${r.name}`, figure: `${ms(r.p99)} (${num(r.n)} calls)`, target: `<= ${r.target} ms`, ok: r.ok });
  const pr = prune.route;
  rows.push({ what: '1 ms route p99: the first prune', figure: `${ms(pr.p99)} (${pr.n} calls${pr.n === 0 ? ': done before the first' : ''})`, target: `<= ${PRUNING_P99_MS} ms`, ok: pr.n === 0 || pr.p99 <= PRUNING_P99_MS });
  if (m.backupMs !== undefined) rows.push({ what: 'expertq backup (live database)', figure: `${num(m.backupMs / 1000, 1)} s`, target: 'sizing figure', ok: null });
  rows.push({ what: 'start-up (listening)', figure: ms(m.startMs, 0), target: `<= ${num(MAX_START_MS)} ms`, ok: m.startMs <= MAX_START_MS });
  if (m.migrationStart) {
    const { ms: took, indexes, estimatedMs, migratedMs } = m.migrationStart;
    // Either start-up is short, or the log said before the upgrade how long it would take, within 2x.
    const announced = estimatedMs !== null && migratedMs !== null && estimatedMs <= 2 * migratedMs && migratedMs <= 2 * estimatedMs;
    rows.push({
      what: `start-up to /healthz, migration building ${indexes.length} indexes`,
      figure: `${ms(took, 0)}; log said ~${estimatedMs === null ? '(nothing)' : ms(estimatedMs, 0)}, took ${migratedMs === null ? '?' : ms(migratedMs, 0)}`,
      target: `<= ${num(MAX_START_MS)} ms, or said within 2x`,
      ok: took <= MAX_START_MS || announced,
    });
  }
  return rows;
}

/** Prints the targets table under `title`; resolves with { ok, summary } for the section's summary line. */
export function printTargets(title, rows) {
  console.log(`\n${title}: targets`);
  printRows(
    [
      { key: 'what', label: 'what', align: 'left' },
      { key: 'figure', label: 'figure', align: 'left' },
      { key: 'target', label: 'target', align: 'left' },
      { key: 'verdict', label: '', align: 'left' },
    ],
    rows.map((r) => ({ ...r, verdict: verdict(r.ok) })),
  );
  const judged = rows.filter((r) => r.ok !== null);
  const failed = judged.filter((r) => !r.ok);
  const summary = `${title}: ${judged.length - failed.length}/${judged.length} targets met${failed.length ? `; FAIL: ${failed.map((r) => r.what).join('; ')}` : ''}`;
  console.log(`\n${failed.length ? 'FAIL' : 'ok  '}  ${summary}`);
  return { ok: failed.length === 0, summary };
}
