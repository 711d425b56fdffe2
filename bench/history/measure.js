// Measures expertq's read routes on a built history: the real server (`startServer`, in a child
// process like bench/pg-server-child.js) on the history database, each route called 50 times in a
// row after 3 warm-up calls; prints one table of median and p99. See build.js for the history.
//
//   node bench/history/measure.js [--requests 100000]     (SQLite, on the cached history)
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { startServerChild } from '../pg-servers.js';
import { num, printRows } from '../report.js';
import { historyArgs } from './build.js';
import { ADMIN_TOKEN, CONSUMER_TOKEN, RARE_WORD, TOKEN_CONSUMER, TOKEN_ENV, URL_ENV, cachedPaths, percentiles, topics, writeHistoryConfig } from './setup.js';

export const CALLS = 50;
const WARMUP = 3;

async function call(url, path, token) {
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, text };
}

/** Calls `paths(i)` WARMUP + CALLS times; resolves with median, p99 and how many items the first answer listed. */
async function timeRoute(url, paths, token = ADMIN_TOKEN) {
  const samples = [];
  let items = '';
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const { ms, text } = await call(url, paths(i), token);
    if (i === 0 && text.startsWith('{"items"')) items = JSON.parse(text).items.length;
    if (i >= WARMUP) samples.push(ms);
  }
  return { ...percentiles(samples), items };
}

/**
 * The read routes with what each is called with. `facts` come from the build: sampled request ids
 * (the request view cycles through them) and a request with a long history (its audit trail).
 */
function routes(facts, cursor) {
  const rareTopic = topics().rare;
  const list = '/api/v1/requests';
  const ids = facts.sampleIds;
  const fixed = (path) => () => path;
  return [
    ['GET /requests (first page)', fixed(list)],
    ['GET /requests?status=asked', fixed(`${list}?status=asked`)],
    ['GET /requests?status=accepted', fixed(`${list}?status=accepted`)],
    [`GET /requests?topic=<rare topic>`, fixed(`${list}?topic=${encodeURIComponent(rareTopic)}`)],
    [`GET /requests?q=<rare word>`, fixed(`${list}?q=${RARE_WORD}`)],
    ['GET /requests?cursor=<page 2>', fixed(`${list}?cursor=${encodeURIComponent(cursor)}`)],
    ['GET /requests?status=asked (consumer token)', fixed(`${list}?status=asked`), CONSUMER_TOKEN],
    ['GET /requests/{id} (sampled ids)', (i) => `${list}/${ids[i % ids.length]}`],
    ['GET /audit?request_id= (send-back history)', fixed(`/api/v1/audit?request_id=${facts.richId ?? ids[0]}`)],
    ['GET /queue', fixed('/api/v1/queue')],
    ['GET /experts', fixed('/api/v1/experts')],
    ['GET /metrics', fixed('/metrics')],
    ['GET /healthz', fixed('/healthz')],
  ];
}

/**
 * Starts the server from `configFile` (with `env`), measures every read route and prints the table
 * under `title`. Resolves with the rows (ms figures as numbers).
 */
export async function measureRoutes({ title, configFile, env, facts }) {
  const startedAt = performance.now();
  // The server's clock starts where the history ended, so it sees the history as it was built: the
  // last day's requests open, today's asks counted (and a cached history measures the same a week later).
  const clockOffsetMs = Math.max(0, Date.now() - facts.endsAt);
  const server = await startServerChild('expertq', { kind: 'expertq', configFile, env: { ...TOKEN_ENV, ...env }, clockOffsetMs });
  const startMs = performance.now() - startedAt;
  try {
    const first = JSON.parse((await call(server.url, '/api/v1/requests', ADMIN_TOKEN)).text);
    const rows = [];
    for (const [name, paths, token] of routes(facts, first.next_cursor ?? '')) {
      rows.push({ name, ...(await timeRoute(server.url, paths, token)) });
    }
    console.log(`\n${title} (server started in ${num(startMs)} ms; ${CALLS} calls per route after ${WARMUP} warm-up calls; consumer token: ${TOKEN_CONSUMER})`);
    printRows(
      [
        { key: 'name', label: 'route', align: 'left' },
        { key: 'p50', label: 'p50 ms' },
        { key: 'p99', label: 'p99 ms' },
        { key: 'items', label: 'items' },
      ],
      rows.map((r) => ({ ...r, p50: num(r.p50, 2), p99: num(r.p99, 2) })),
    );
    return { startMs, rows };
  } finally {
    await server.close();
  }
}

/**
 * SQLite: measures on a copy of the cached database (the server's ticks escalate and give up what
 * falls due while it runs, which would change the cache), deleted afterwards.
 */
export async function measureSqlite({ path, facts }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-measure-'));
  try {
    const copy = join(dir, 'history.db');
    copyFileSync(path, copy);
    const mb = statSync(copy).size / 1_048_576;
    const configFile = writeHistoryConfig(dir, { path: copy });
    return await measureRoutes({ title: `SQLite, ${num(facts.requests)} submissions, ${num(mb)} MB (${num((mb * 1024 * 1024) / facts.requests)} bytes a submission)`, configFile, env: {}, facts });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** PostgreSQL: measures on the built database at `url` (it is thrown away with its server). */
export async function measurePostgres(pg, { url, facts }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-history-measure-'));
  try {
    const [{ size }] = await pg.query(url, 'SELECT pg_database_size(current_database()) AS size');
    const mb = Number(size) / 1_048_576;
    const configFile = writeHistoryConfig(dir, { url_env: URL_ENV });
    return await measureRoutes({ title: `PostgreSQL, ${num(facts.requests)} submissions, ${num(mb)} MB`, configFile, env: { [URL_ENV]: url }, facts });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { requests } = historyArgs();
  const paths = cachedPaths(requests);
  if (!existsSync(paths.facts)) throw new Error(`No history of ${requests} submissions in ${paths.db}: run node bench/history/build.js --requests ${requests} first.`);
  await measureSqlite({ path: paths.db, facts: JSON.parse(readFileSync(paths.facts, 'utf8')) });
}
