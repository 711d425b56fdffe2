// The read routes of the history bench: after every route was called in turn for a few seconds, each
// called 200 times in a row after 3 warm-up calls on a running history server; median and p99 per route.
import { num, printRows } from '../report.js';
import { ADMIN_TOKEN, CONSUMER_TOKEN, RARE_WORD, TOKEN_CONSUMER, topics } from './setup.js';
import { CALLS, WARMUP, call, timeRoute, warmUp } from './calls.js';

/** How long every route is called in turn before any is timed (see warmUp). */
export const WARM_MS = 5000;

/** Target p99 of every API read route, and of the two the issue names apart. */
export const ROUTE_P99_MS = 20;
const TIGHTER = { 'GET /experts': 5 };
/** Routes whose own target is looser: a three-year insights query answers in 50 ms at most. */
const LOOSER = { 'GET /insights?group_by=week (three years)': 50 };

/**
 * The read routes with what each is called with. `facts` come from the build: sampled request ids
 * (the request view cycles through them) and a request with a long history (its audit trail).
 */
function routes(facts, cursor) {
  const rareTopic = topics().rare;
  const list = '/api/v1/requests';
  const fixed = (path) => () => path;
  return [
    ['GET /requests (first page)', fixed(list)],
    ['GET /requests?status=asked', fixed(`${list}?status=asked`)],
    ['GET /requests?status=accepted', fixed(`${list}?status=accepted`)],
    [`GET /requests?topic=<rare topic>`, fixed(`${list}?topic=${encodeURIComponent(rareTopic)}`)],
    [`GET /requests?q=<rare word>`, fixed(`${list}?q=${RARE_WORD}`)],
    ['GET /requests?cursor=<page 2>', fixed(`${list}?cursor=${encodeURIComponent(cursor)}`)],
    ['GET /requests?status=asked (consumer token)', fixed(`${list}?status=asked`), CONSUMER_TOKEN],
    ['GET /requests/{id} (sampled ids)', requestView(facts)],
    ['GET /audit?request_id= (send-back history)', fixed(`/api/v1/audit?request_id=${facts.richId ?? facts.sampleIds[0]}`)],
    ['GET /queue', fixed('/api/v1/queue')],
    ['GET /experts', fixed('/api/v1/experts')],
    ['GET /insights?group_by=week (three years)', threeYearsOfInsights],
    ['GET /metrics', fixed('/metrics')],
    ['GET /healthz', fixed('/healthz')],
  ];
}

/** `GET /insights` by week over the three years up to now (the longest window), from the rollups only. */
export function threeYearsOfInsights() {
  const from = new Date(Date.now() - (3 * 365 + 1) * 86_400_000).toISOString();
  return `/api/v1/insights?group_by=week&from=${encodeURIComponent(from)}`;
}

/** `GET /requests/{id}` cycling through the ids sampled from the whole history: the bench's "1 ms route". */
export function requestView(facts) {
  // A slot whose submission repeated a dedup key stays empty in a small history.
  const ids = facts.sampleIds.filter(Boolean);
  return (i) => `/api/v1/requests/${ids[i % ids.length]}`;
}

/** The read routes' figures on `server`, each row with its target (p99) and verdict. */
export async function measureRoutes(server, facts) {
  const first = JSON.parse((await call(server.url, '/api/v1/requests', ADMIN_TOKEN)).text);
  const list = routes(facts, first.next_cursor ?? '');
  await warmUp(server.url, list.map(([, paths, token]) => [paths, token]), WARM_MS);
  const rows = [];
  for (const [name, paths, token] of list) {
    const figures = await timeRoute(server.url, paths, token);
    const target = TIGHTER[name] ?? LOOSER[name] ?? ROUTE_P99_MS;
    rows.push({ name, ...figures, target, ok: figures.p99 <= target });
  }
  return rows;
}

/** Prints the read routes' table under `title`. */
export function printRoutes(title, rows) {
  console.log(`\n${title}: read routes (${CALLS} calls per route after ${WARM_MS / 1000} s of calls to all and ${WARMUP} warm-up calls; consumer token: ${TOKEN_CONSUMER})`);
  printRows(
    [
      { key: 'name', label: 'route', align: 'left' },
      { key: 'p50', label: 'p50 ms' },
      { key: 'p99', label: 'p99 ms' },
      { key: 'max', label: 'slowest' },
      { key: 'items', label: 'items' },
      { key: 'target', label: 'target', align: 'left' },
      { key: 'verdict', label: '', align: 'left' },
    ],
    rows.map((r) => ({ ...r, p50: num(r.p50, 2), p99: num(r.p99, 2), max: num(r.max, 1), target: `p99 <= ${r.target} ms`, verdict: r.ok ? 'PASS' : 'FAIL' })),
  );
}
