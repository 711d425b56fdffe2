// Builds a history database through expertq's own service: the real ExpertqService and scheduler on a
// real store, a fake clock this file advances in 10-minute steps, and traffic like the scale probe's
// (913 submissions a day from 7 consumers, 600 experts; see traffic.js for the mix). Needs `npm run build`.
//
//   node bench/history/build.js [--requests 100000] [--engine sqlite|postgres [--from-sqlite] [--keep]]
//
// SQLite: the database is kept as bench/.cache/history-<N>.db (with history-<N>.json, the facts
// measure.js needs) and reused when present. PostgreSQL: built on a throwaway server, timed, dropped.
// Consumers are registered in-process with no handlers: every event gets its delivery rows, each
// delivered at once, and no delivery attempt leaves the process.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../dist/config/load-config.js';
import { composeService } from '../../dist/compose-service.js';
import { openStore } from '../../dist/store/open-store.js';
import { startPostgres } from '../pg-servers.js';
import { copyHistoryToPg } from './copy-to-pg.js';
import { CONSUMERS, PER_DAY, cachedPaths, writeHistoryConfig } from './setup.js';
import { STEP_MS, TRAFFIC_VERSION, Traffic } from './traffic.js';

const DAY = 86_400_000;

/** A clock the build moves by hand. */
class StepClock {
  constructor(ms) {
    this.ms = ms;
  }
  now() {
    return this.ms;
  }
}

/**
 * Submits `requests` requests (913 a day) through a service on `storage` (open-store's options), the
 * fake clock starting so that the history ends about now. Resolves with the traffic's figures, the
 * facts measure needs and the build time; `log(line)` gets a progress line every 10%.
 */
export async function buildHistory({ requests, storage, log = console.log }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-'));
  const store = await openStore(storage);
  try {
    // The build's own speed only: every commit still happens, it is just not flushed to disk one by one.
    if (store.db) store.db.pragma('synchronous = OFF');
    const config = loadConfig(writeHistoryConfig(dir, 'path' in storage ? { path: storage.path } : { url_env: 'UNUSED' }));
    const days = Math.ceil(requests / PER_DAY);
    // Ends about now: the last day's requests are still open when measured (see measure.js's clock).
    const clock = new StepClock(Date.now() - Math.ceil((requests / PER_DAY) * (DAY / STEP_MS)) * STEP_MS);
    const traffic = new Traffic();
    // As a server that kept its insights all along: their days and weeks in the org's time zone.
    await store.keepInsightsIn(config.org.timezone);
    const service = composeService({ config, store, transport: traffic.transport, log: pino({ level: 'silent' }), clock });
    traffic.service = service;
    for (const id of CONSUMERS) await service.registerConsumer({ id, handles_kinds: ['answer'], delivery: { type: 'in_process' } }, {});

    const started = performance.now();
    let nextReport = 0.1;
    while (traffic.submitted < requests) {
      clock.ms += STEP_MS;
      traffic.step++;
      await traffic.runStep(traffic.submissionsNow(requests - traffic.submitted));
      await service.tick();
      await service.idle();
      traffic.drainInbox();
      if (traffic.submitted >= requests * nextReport) {
        const seconds = (performance.now() - started) / 1000;
        log(`  ${Math.round(nextReport * 100)}%: ${traffic.submitted.toLocaleString('en-US')} submitted, day ${Math.floor((traffic.step * STEP_MS) / DAY)}, ${seconds.toFixed(1)} s`);
        nextReport += 0.1;
      }
    }
    await service.idle();
    const seconds = (performance.now() - started) / 1000;
    return { seconds, days, figures: traffic.figures, errors: traffic.errors, facts: { version: TRAFFIC_VERSION, requests, endsAt: clock.ms, ...traffic.facts } };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the build's figures and the extrapolated time for 100k and 1M submissions. */
export function printBuild(requests, built) {
  const perRequest = built.seconds / requests;
  const f = built.figures;
  console.log(`built ${requests.toLocaleString('en-US')} submissions (${built.days} days) in ${built.seconds.toFixed(1)} s ` +
    `(${(requests / built.seconds).toFixed(0)}/s); extrapolated: 100k ≈ ${((perRequest * 1e5) / 60).toFixed(1)} min, 1M ≈ ${((perRequest * 1e6) / 60).toFixed(0)} min`);
  console.log(`  ${Object.entries(f).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const e of built.errors) console.log(`  unexpected error: ${e}`);
}

/**
 * The cached SQLite history of `requests` submissions: reused when present, else built (into a
 * temporary name first, so an interrupted build is never reused) in a process of its own (inChild).
 * Resolves with its path and facts.
 */
export async function sqliteHistory(requests, { here = false } = {}) {
  const paths = cachedPaths(requests);
  const cached = existsSync(paths.db) && existsSync(paths.facts) ? JSON.parse(readFileSync(paths.facts, 'utf8')) : null;
  if (cached?.version === TRAFFIC_VERSION) {
    console.log(`reusing ${paths.db}`);
    return { path: paths.db, facts: cached };
  }
  if (!here) return inChild({ engine: 'sqlite', requests });
  if (cached) console.log(`${paths.db} was built by other traffic (version ${cached.version ?? 1}, now ${TRAFFIC_VERSION}): building it again`);
  const building = `${paths.db}.building`;
  for (const suffix of ['', '-wal', '-shm', '.lock']) rmSync(`${building}${suffix}`, { force: true });
  console.log(`building ${paths.db} (${requests.toLocaleString('en-US')} submissions)…`);
  const built = await buildHistory({ requests, storage: { path: building } });
  printBuild(requests, built);
  for (const suffix of ['-wal', '-shm']) rmSync(`${paths.db}${suffix}`, { force: true });
  renameSync(building, paths.db);
  rmSync(`${building}.lock`, { force: true });
  writeFileSync(paths.facts, JSON.stringify(built.facts));
  return { path: paths.db, facts: built.facts };
}

/**
 * Builds on a fresh database of a running PostgreSQL server (startPostgres) and resolves with its URL
 * and facts. `fromSqlite`: copies the cached SQLite history instead (built first if missing;
 * copy-to-pg.js), minutes rather than hours at a million submissions. Either runs in a process of
 * its own (inChild).
 */
export async function postgresHistory(pg, requests, { fromSqlite = false } = {}) {
  const url = await pg.createDatabase(`history_${requests}`);
  const { facts } = await inChild({ engine: 'postgres', requests, url, fromSqlite });
  return { url, facts };
}

/** postgresHistory's work on the database at `url`, in the process that runs it. */
export async function fillPostgres({ url, requests, fromSqlite }) {
  if (fromSqlite) {
    const { path, facts } = await sqliteHistory(requests, { here: true });
    console.log(`copying ${path} into PostgreSQL…`);
    const started = performance.now();
    await copyHistoryToPg(path, url);
    console.log(`copied in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { facts };
  }
  console.log(`building on PostgreSQL (${requests.toLocaleString('en-US')} submissions)…`);
  const built = await buildHistory({ requests, storage: { urlEnv: 'EXPERTQ_HISTORY_DATABASE_URL', url, poolSize: 4 } });
  await settlePostgres(url);
  printBuild(requests, built);
  return { facts: built.facts };
}

/**
 * VACUUM ANALYZE and CHECKPOINT on the database at `url`: what autovacuum would long have done on a
 * database that grew over months (measuring while it runs measures autovacuum), and the checkpoint that
 * would otherwise write a build's (or a rebuild's) pages back while the bench measures.
 */
export async function settlePostgres(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/**
 * Builds or copies a history in a child process (fill-child.js) and resolves with what it resolved
 * with. The measuring process then starts without the build's heap: measured in the process that had
 * just copied 100,000 submissions into PostgreSQL, the client's own garbage collections (3 ms pauses,
 * four in 400 calls) were most of GET /experts' p99.
 */
function inChild(job) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./fill-child.js', import.meta.url)), { stdio: 'inherit' });
    let result;
    child.on('message', (message) => (message.error ? reject(new Error(message.error)) : (result = message)));
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`the history's build ended (exit ${code}) without a result`))));
    child.send(job);
  });
}

/**
 * `--requests N --engine sqlite|postgres [--from-sqlite]`, shared with run.js; `also` names the options
 * one script adds: `keep` (build.js: keep the PostgreSQL server with the history running, to measure it
 * again and again) or `postgres-url` (insights.js: measure the history in that database).
 */
export function historyArgs(argv = process.argv.slice(2), also = []) {
  const extra = { keep: { type: 'boolean', default: false }, 'postgres-url': { type: 'string' } };
  const { values } = parseArgs({
    args: argv,
    options: {
      requests: { type: 'string', default: '100000' },
      engine: { type: 'string', default: 'sqlite' },
      'from-sqlite': { type: 'boolean', default: false },
      ...Object.fromEntries(also.map((name) => [name, extra[name]])),
    },
  });
  const requests = Number(values.requests);
  if (!Number.isInteger(requests) || requests < 1) throw new Error(`--requests must be a positive whole number, got "${values.requests}"`);
  if (values.engine !== 'sqlite' && values.engine !== 'postgres') throw new Error(`--engine must be sqlite or postgres, got "${values.engine}"`);
  if (values['from-sqlite'] && values.engine !== 'postgres') throw new Error('--from-sqlite copies the SQLite history into PostgreSQL: use it with --engine postgres');
  if ((values.keep || values['postgres-url']) && values.engine !== 'postgres') throw new Error('--keep and --postgres-url are about a PostgreSQL history: use them with --engine postgres');
  return { requests, engine: values.engine, fromSqlite: values['from-sqlite'], keep: values.keep ?? false, postgresUrl: values['postgres-url'] };
}

/** The facts of the cached SQLite history of `requests` submissions, which a PostgreSQL copy of it shares. */
export function cachedFacts(requests) {
  const { facts } = cachedPaths(requests);
  if (!existsSync(facts)) throw new Error(`${facts} is missing: the history at --postgres-url must be a copy of the cached SQLite history (--from-sqlite)`);
  return JSON.parse(readFileSync(facts, 'utf8'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { requests, engine, fromSqlite, keep } = historyArgs(undefined, ['keep']);
  if (engine === 'sqlite') await sqliteHistory(requests);
  else {
    const pg = await startPostgres();
    try {
      const { url } = await postgresHistory(pg, requests, { fromSqlite });
      if (keep) {
        console.log(`kept: measure it with --postgres-url ${url}\n(Ctrl-C stops the server and deletes it)`);
        await new Promise((resolve) => process.once('SIGINT', resolve));
      }
    } finally {
      await pg.close();
    }
  }
}
