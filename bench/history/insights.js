// `npm run bench:history:insights [-- --requests N] [-- --engine postgres [--from-sqlite | --postgres-url U]]`: the
// insights figures alone on a built history, when the whole history bench would take too long (at a
// million submissions it runs for most of an hour per engine): the three-year weekly query (200 calls
// after warming up), `GET /requests/{id}` while such queries run back to back, and how long building
// the day and week rows from the hours takes (as after the upgrade that adds them, or when
// `org.timezone` changes). SQLite measures a copy of the cached history; PostgreSQL the history built
// or copied in (build.js), or the copy at `--postgres-url` that `build.js --engine postgres --from-sqlite
// --keep` keeps (the copy takes 20 minutes at a million). Run `npm run build` first. Exit code 1 when a
// target is missed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPgStore } from '../../dist/store/postgres/pg-store.js';
import { openSqliteStore } from '../../dist/store/sqlite/sqlite-store.js';
import { startPostgres } from '../pg-servers.js';
import { num, printMachine, printRows } from '../report.js';
import { cachedFacts, historyArgs, postgresHistory, settlePostgres, sqliteHistory } from './build.js';
import { CALLS, timeRoute, warmUp } from './calls.js';
import { copyToDisk } from './measure.js';
import { requestView, threeYearsOfInsights } from './routes.js';
import { startHistoryServer } from './server.js';
import { URL_ENV, writeHistoryConfig } from './setup.js';
import { LOADED_P99_MS, measureInsightsLoad } from './under-load.js';

const QUERY_P99_MS = 50;
/** Any zone but the history's (UTC), with a half-hour offset: every day and week row moves. */
const OTHER_ZONE = 'Asia/Kolkata';

/** The query and the 1 ms route beside it, on a running server. */
async function measureServer({ configFile, env, facts }) {
  const server = await startHistoryServer({ configFile, env, facts });
  try {
    await warmUp(server.url, [[threeYearsOfInsights], [requestView(facts)]], 5000);
    const query = await timeRoute(server.url, threeYearsOfInsights);
    const loaded = await measureInsightsLoad(server, facts);
    return { startMs: server.startMs, query, loaded };
  } finally {
    await server.close();
  }
}

/** Builds the day and week rows in another zone, then back in UTC (as the history was built); ms each. */
async function measureRebuild(store) {
  const times = [];
  let hourRows = 0;
  try {
    for (const zone of [OTHER_ZONE, 'UTC']) {
      const started = performance.now();
      await store.keepInsightsIn(zone, (rows) => (hourRows = rows));
      times.push(performance.now() - started);
    }
  } finally {
    await store.close();
  }
  return { hourRows, times };
}

function report(title, m) {
  console.log(`\n${title}: server started in ${num(m.startMs)} ms`);
  const rows = [
    { name: `three-year GET /insights?group_by=week (${CALLS} calls)`, ...m.query, target: QUERY_P99_MS },
    { name: 'GET /requests/{id} while those run back to back', ...m.loaded.route, target: LOADED_P99_MS, note: m.loaded.note },
  ].map((r) => ({ ...r, ok: r.p99 !== null && r.p99 <= r.target }));
  printRows(
    [
      { key: 'name', label: 'what', align: 'left' },
      { key: 'p50', label: 'p50 ms' },
      { key: 'p99', label: 'p99 ms' },
      { key: 'target', label: 'target', align: 'left' },
      { key: 'verdict', label: '', align: 'left' },
      { key: 'note', label: '', align: 'left' },
    ],
    rows.map((r) => ({ ...r, p50: num(r.p50, 2), p99: num(r.p99, 2), target: `p99 <= ${r.target} ms`, verdict: r.ok ? 'PASS' : 'FAIL', note: r.note ?? '' })),
  );
  const [there, back] = m.rebuild.times;
  console.log(`day and week rows built from ${num(m.rebuild.hourRows)} hour rows: ${num(there / 1000, 1)} s in ${OTHER_ZONE}, ${num(back / 1000, 1)} s back in UTC`);
  return rows.every((r) => r.ok);
}

async function onSqlite(requests) {
  const { path, facts } = await sqliteHistory(requests);
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-insights-'));
  try {
    const copy = join(dir, 'history.db');
    copyToDisk(path, copy);
    const measured = await measureServer({ configFile: writeHistoryConfig(dir, { path: copy }), env: {}, facts });
    const rebuild = await measureRebuild(openSqliteStore(copy));
    return report(`SQLite, ${num(requests)} submissions`, { ...measured, rebuild });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onPostgres(requests, fromSqlite, postgresUrl) {
  const pg = postgresUrl ? null : await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-insights-'));
  try {
    const { url, facts } = pg ? await postgresHistory(pg, requests, { fromSqlite }) : { url: postgresUrl, facts: cachedFacts(requests) };
    // A kept copy was last measured with its rebuilds, whose writes would otherwise be cleaned up meanwhile.
    if (!pg) await settlePostgres(url);
    const measured = await measureServer({ configFile: writeHistoryConfig(dir, { url_env: URL_ENV }), env: { [URL_ENV]: url }, facts });
    const rebuild = await measureRebuild(await openPgStore({ url, poolSize: 2 }));
    return report(`PostgreSQL, ${num(requests)} submissions`, { ...measured, rebuild });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await pg?.close();
  }
}

const { requests, engine, fromSqlite, postgresUrl } = historyArgs(undefined, ['postgres-url']);
printMachine();
const ok = engine === 'sqlite' ? await onSqlite(requests) : await onPostgres(requests, fromSqlite, postgresUrl);
process.exit(ok ? 0 : 1); // explicitly: see run.js
