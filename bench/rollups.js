// Section: what keeping the insight rollups costs submits. The same build serves sustained
// POST /api/v1/requests with its rollups kept (as it runs) and with every rollup count dropped where it
// is made (switchOffRollups in servers.js, the same in pg-server-child.js), alternated over three
// rounds in the same run, same autocannon settings as the submit section: on SQLite (one process), and
// on PostgreSQL with two instances sharing the database (where every instance adds to the same rows).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateExperts, topicPool } from './fixtures.js';
import { startPostgres } from './pg-servers.js';
import { measureExpertq } from './postgres.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { startExpertq } from './servers.js';
import { EXPERT_COUNT, mean, problemsOf, UNCAPPED } from './submit.js';

/** Target: submit throughput with the rollups kept is at least 0.95 of the figure without. */
export const MIN_ROLLUP_RATIO = 0.95;
const ROUNDS = 3;

/**
 * One SQLite run. The counts a run leaves in the journal are folded right after it, and that time is
 * added to the run's: the throughput reported pays for every rollup row the submits made.
 */
async function measure(rollups, experts, seconds) {
  const server = await startExpertq({ experts, defaults: UNCAPPED, rollups });
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    const foldMs = await server.foldInsights();
    if (rollups) console.log(`  folding what the run left in the journal took ${num(foldMs, 0)} ms, counted in the run's time`);
    result.requestsPerSec = result.total / (seconds + foldMs / 1000);
    return { result, stats: await server.stats() };
  } finally {
    await server.close();
  }
}

/** Alternated rounds of `run(false)` then `run(true)`; prints the table and the ratio of the means. */
async function alternate(label, run) {
  const without = [];
  const kept = [];
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`${label}, round ${round}/${ROUNDS}: rollups switched off ...`);
    without.push(await run(false, round));
    console.log(`${label}, round ${round}/${ROUNDS}: rollups kept ...`);
    kept.push(await run(true, round));
  }
  console.log('');
  printRows(LOAD_COLUMNS, without.flatMap((r, i) => [loadRow(`${label}, without #${i + 1}`, r.result), loadRow(`${label}, with #${i + 1}`, kept[i].result)]));
  const problems = [...without.flatMap((r, i) => problemsOf(`${label} without #${i + 1}`, r)), ...kept.flatMap((r, i) => problemsOf(`${label} with #${i + 1}`, r))];
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  const ratio = mean(kept) / mean(without);
  const pass = ratio >= MIN_ROLLUP_RATIO && problems.length === 0;
  console.log(
    `${label}: throughput with rollups / without = ${num(mean(kept), 1)} / ${num(mean(without), 1)} req/s = ${ratio.toFixed(3)}  ` +
      `(target: >= ${MIN_ROLLUP_RATIO}, means of ${ROUNDS} alternated runs)  ${pass ? 'PASS' : 'FAIL'}\n`,
  );
  return { pass, text: `${label} ${ratio.toFixed(3)} (${num(mean(kept), 1)} vs ${num(mean(without), 1)} req/s)${problems.length ? `, ${problems.length} problem(s)` : ''}` };
}

export async function benchRollups() {
  const seconds = benchSeconds();
  const experts = generateExperts(EXPERT_COUNT, topicPool());
  printHeading('insight rollups: submit throughput with them kept and without');
  console.log(`${EXPERT_COUNT} experts, ${CONNECTIONS} connections, ${seconds} s per run, ${ROUNDS} alternated rounds (without first)`);
  const sqlite = process.env.ROLLUPS_PG_ONLY ? { pass: true, text: '' } : await alternate('SQLite', (rollups) => measure(rollups, experts, seconds));
  if (process.env.ROLLUPS_SQLITE_ONLY) return { name: 'rollups', ok: sqlite.pass, summary: sqlite.text };
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-rollups-'));
  const pg = await startPostgres();
  let postgres;
  try {
    postgres = await alternate('PostgreSQL, 2 instances', (rollups, round) =>
      measureExpertq(pg, { database: `bench_rollups_${rollups ? 'on' : 'off'}_${round}`, count: 2, dir, experts, seconds, rollups }),
    );
  } finally {
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ok = sqlite.pass && postgres.pass;
  return { name: 'rollups', ok, summary: `rollups: submit with/without (>= ${MIN_ROLLUP_RATIO}) ${ok ? 'PASS' : 'FAIL'}: ${sqlite.text}; ${postgres.text}` };
}
