// "A 1 ms route under load": the p50/p99 of `GET /requests/{id}` (sampled ids) while one slow-call class
// runs back to back on the same server: rare-word searches, `/metrics` scrapes, three-year insights, or an `expertq backup`
// of the live database (the CLI in a child process). The first prune is in first-prune.js.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { backToBack, call, sampleWhile } from './calls.js';
import { requestView, threeYearsOfInsights } from './routes.js';
import { RARE_WORD, TOKEN_ENV } from './setup.js';

/** The target: a 1 ms route stays at or under this p99 while any slow class runs. */
export const LOADED_P99_MS = 20;
/** How many calls of the 1 ms route each back-to-back class is measured with. */
export const LOADED_CALLS = 200;

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/**
 * Samples the 1 ms route LOADED_CALLS times while `once()` runs back to back; resolves with the route's
 * figures and how often (and how fast) the slow call ran meanwhile.
 */
async function whileBackToBack(server, facts, once) {
  let stop = false;
  const slow = backToBack(once, () => stop);
  slow.catch(() => {}); // rethrown below, once the sampling is over
  try {
    const route = await sampleWhile(server.url, requestView(facts), () => false, LOADED_CALLS);
    stop = true;
    return { route, slow: await slow };
  } finally {
    stop = true;
    await slow.catch(() => {});
  }
}

/** The 1 ms route while three-year insights queries run back to back: { route, note }. */
export async function measureInsightsLoad(server, facts) {
  const { route, slow } = await whileBackToBack(server, facts, () => call(server.url, threeYearsOfInsights()));
  return { route, note: `${slow.n} queries, median ${slow.p50?.toFixed(1)} ms` };
}

/**
 * `expertq backup <target> --config <configFile>` in a child process; resolves with its duration (ms)
 * and what it printed. Throws when it fails.
 */
export function runBackup(configFile, target, env = {}) {
  rmSync(target, { force: true });
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'backup', target, '--config', configFile], { env: { ...process.env, ...TOKEN_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, output: output.trim() });
      else reject(new Error(`expertq backup exited with ${code}: ${output.trim()}`));
    });
  });
}

/**
 * The 1 ms route under each slow class on a running `server`. `backup` ({ configFile, target }), on
 * SQLite only, adds the backup class and its duration. Resolves with one row per class:
 * { name, p50, p99, n, target, ok, note }, and `backupMs` when a backup ran.
 */
export async function measureUnderLoad(server, facts, backup) {
  const rows = [];
  const row = (name, route, note) => ({ name, ...route, target: LOADED_P99_MS, ok: route.p99 !== null && route.p99 <= LOADED_P99_MS, note });

  const searches = await whileBackToBack(server, facts, () => call(server.url, `/api/v1/requests?q=${RARE_WORD}`));
  rows.push(row('searches (?q=<rare word>) back to back', searches.route, `${searches.slow.n} searches, median ${searches.slow.p50?.toFixed(1)} ms`));

  const scrapes = await whileBackToBack(server, facts, () => call(server.url, '/metrics'));
  rows.push(row('/metrics scrapes back to back', scrapes.route, `${scrapes.slow.n} scrapes, median ${scrapes.slow.p50?.toFixed(1)} ms`));

  const insights = await measureInsightsLoad(server, facts);
  rows.push(row('three-year insights by week back to back', insights.route, insights.note));

  let backupMs = null;
  if (backup) {
    let done = false;
    const running = runBackup(backup.configFile, backup.target).finally(() => (done = true));
    running.catch(() => {}); // rethrown below, once the sampling is over
    const route = await sampleWhile(server.url, requestView(facts), () => done);
    const result = await running;
    backupMs = result.ms;
    rmSync(backup.target, { force: true });
    rows.push(row('expertq backup (CLI child) of the live database', route, `backup ${(result.ms / 1000).toFixed(1)} s`));
  }
  return { rows, backupMs };
}
