// Section: what keeping the insight rollups costs submits. The same build serves sustained
// POST /api/v1/requests with its rollups kept (as it runs) and with every rollup count dropped where it
// is made (switchOffRollups in servers.js), alternated over three rounds in the same run, same
// autocannon settings as the submit section.
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { startExpertq } from './servers.js';
import { EXPERT_COUNT, mean, problemsOf, UNCAPPED } from './submit.js';

/** Target: submit throughput with the rollups kept is at least 0.95 of the figure without. */
export const MIN_ROLLUP_RATIO = 0.95;
const ROUNDS = 3;

async function measure(rollups, experts, seconds) {
  const server = await startExpertq({ experts, defaults: UNCAPPED, rollups });
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    return { result, stats: await server.stats() };
  } finally {
    await server.close();
  }
}

export async function benchRollups() {
  const seconds = benchSeconds();
  const experts = generateExperts(EXPERT_COUNT, topicPool());
  printHeading('insight rollups: submit throughput with them kept and without');
  console.log(`${EXPERT_COUNT} experts, ${CONNECTIONS} connections, ${seconds} s per run, ${ROUNDS} alternated rounds (without first)`);
  const without = [];
  const kept = [];
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}/${ROUNDS}: rollups switched off ...`);
    without.push(await measure(false, experts, seconds));
    console.log(`round ${round}/${ROUNDS}: rollups kept ...`);
    kept.push(await measure(true, experts, seconds));
  }
  console.log('');
  printRows(LOAD_COLUMNS, without.flatMap((run, i) => [loadRow(`without rollups #${i + 1}`, run.result), loadRow(`with rollups #${i + 1}`, kept[i].result)]));
  const problems = [...without.flatMap((run, i) => problemsOf(`without rollups #${i + 1}`, run)), ...kept.flatMap((run, i) => problemsOf(`with rollups #${i + 1}`, run))];
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  const ratio = mean(kept) / mean(without);
  const pass = ratio >= MIN_ROLLUP_RATIO;
  console.log(
    `\nthroughput with rollups / without = ${num(mean(kept), 1)} / ${num(mean(without), 1)} req/s = ${ratio.toFixed(3)}  ` +
      `(target: >= ${MIN_ROLLUP_RATIO}, means of ${ROUNDS} alternated runs)  ${pass ? 'PASS' : 'FAIL'}`,
  );
  return {
    name: 'rollups',
    ok: pass && problems.length === 0,
    summary: `rollups: submit with/without ${ratio.toFixed(3)} (>= ${MIN_ROLLUP_RATIO}) ${pass ? 'PASS' : 'FAIL'}, ${num(mean(kept), 1)} vs ${num(mean(without), 1)} req/s${problems.length ? `, ${problems.length} problem(s)` : ''}`,
  };
}
