// Measures a built history on one engine, each figure beside its target (see build.js for the history):
// the read routes (routes.js), the idle tick (tick.js), submit throughput against an empty database
// (submit-rate.js), a 1 ms route while slow calls run back to back (under-load.js), the first prune
// (first-prune.js), `expertq backup` and start-up with a pending index-building migration (startup.js,
// SQLite). Prints a table per part, then the targets table and a summary line (verdicts.js).
//
//   node bench/history/measure.js [--requests 100000]     (SQLite, on the cached history)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { num } from '../report.js';
import { historyArgs } from './build.js';
import { PRUNING_P99_MS, measureFirstPrune } from './first-prune.js';
import { measureRoutes, printRoutes } from './routes.js';
import { startHistoryServer } from './server.js';
import { URL_ENV, cachedPaths, fsyncFile, writeHistoryConfig } from './setup.js';
import { indexMigration, measurePendingMigrationStart } from './startup.js';
import { measureSubmits, measureSubmitsEmpty } from './submit-rate.js';
import { measureIdleTick } from './tick.js';
import { measureUnderLoad } from './under-load.js';
import { printTargets, printUnderLoad, targetRows } from './verdicts.js';

/**
 * What both engines measure on one running server, in an order that leaves the history as built for
 * the read routes: routes, then the slow classes (with a backup on SQLite), then submits.
 */
async function measureServer({ configFile, env, facts, backup }) {
  const server = await startHistoryServer({ configFile, env, facts });
  try {
    const routes = await measureRoutes(server, facts);
    const { rows: underLoad, backupMs } = await measureUnderLoad(server, facts, backup);
    const submits = await measureSubmits(server);
    return { startMs: server.startMs, routes, underLoad, ...(backup ? { backupMs } : {}), submits };
  } finally {
    await server.close();
  }
}

function report(title, about, m) {
  console.log(`\n${title}: ${about}; server started in ${num(m.startMs)} ms`);
  printRoutes(title, m.routes);
  const pruning = m.prune.route;
  const prune = { name: 'the first prune (newest requests)', ...pruning, target: PRUNING_P99_MS, ok: pruning.n === 0 || pruning.p99 <= PRUNING_P99_MS, note: m.prune.ms === null ? 'not done' : `done after ${num(m.prune.ms / 1000, 1)} s` };
  printUnderLoad(title, [...m.underLoad, prune]);
  return printTargets(title, targetRows(m));
}

/** Copies `from` to `to`, on disk before anything is measured (fsyncFile says why: start-up took 2.2-4 s at 100,000 submissions without, 2.0 s with). */
export function copyToDisk(from, to) {
  copyFileSync(from, to);
  fsyncFile(to);
}

/**
 * SQLite: everything on one copy of the cached database (the server's ticks, submits and prune change
 * it; the cache is never written), deleted afterwards. Resolves with { ok, summary }.
 */
export async function measureSqlite({ path, facts }) {
  // Fails now, not after the other measurements, if the last migrations cannot be replayed.
  indexMigration();
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-measure-'));
  try {
    const copy = join(dir, 'history.db');
    copyToDisk(path, copy);
    const mb = statSync(copy).size / 1_048_576;
    const title = `SQLite, ${num(facts.requests)} submissions`;
    const about = `${num(mb)} MB (${num((mb * 1024 * 1024) / facts.requests)} bytes a submission), measured on a copy of ${path}`;
    const configFile = writeHistoryConfig(dir, { path: copy });
    const tick = await measureIdleTick({ storage: { path: copy }, facts });
    const server = await measureServer({ configFile, env: {}, facts, backup: { configFile, target: join(dir, 'backup.db') } });
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const submitsEmpty = await measureSubmitsEmpty({ configFile: writeHistoryConfig(empty, { path: join(empty, 'empty.db') }), env: {} });
    const pruneDir = join(dir, 'prune');
    mkdirSync(pruneDir);
    const prune = await measureFirstPrune({ dir: pruneDir, storage: { path: copy }, env: {}, facts });
    const migrationStart = await measurePendingMigrationStart({ path: copy, configFile, facts });
    return report(title, about, { ...server, tick, submitsEmpty, prune, migrationStart });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL: on the built database at `url` (thrown away with its server), the prune last; the
 * empty reference in a database of its own. No backup (`pg_dump` is the operator's) and no replayed
 * migration. Resolves with { ok, summary }.
 */
export async function measurePostgres(pg, { url, facts }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-measure-'));
  try {
    const [{ size }] = await pg.query(url, 'SELECT pg_database_size(current_database()) AS size');
    const title = `PostgreSQL, ${num(facts.requests)} submissions`;
    const about = `${num(Number(size) / 1_048_576)} MB`;
    const configFile = writeHistoryConfig(dir, { url_env: URL_ENV });
    const env = { [URL_ENV]: url };
    const tick = await measureIdleTick({ storage: { urlEnv: URL_ENV, url, poolSize: 4 }, facts });
    const server = await measureServer({ configFile, env, facts, backup: null });
    const submitsEmpty = await measureSubmitsEmpty({ configFile, env: { [URL_ENV]: await pg.createDatabase(`history_empty_${facts.requests}`) } });
    const pruneDir = join(dir, 'prune');
    mkdirSync(pruneDir);
    const prune = await measureFirstPrune({ dir: pruneDir, storage: { url_env: URL_ENV }, env, facts });
    return report(title, about, { ...server, tick, submitsEmpty, prune });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { requests } = historyArgs();
  const paths = cachedPaths(requests);
  if (!existsSync(paths.facts)) throw new Error(`No history of ${requests} submissions in ${paths.db}: run node bench/history/build.js --requests ${requests} first.`);
  const outcome = await measureSqlite({ path: paths.db, facts: JSON.parse(readFileSync(paths.facts, 'utf8')) });
  process.exit(outcome.ok ? 0 : 1); // explicitly: see run.js
}
