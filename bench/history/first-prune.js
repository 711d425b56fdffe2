// The first prune of a history that never pruned: the server started with retention turned on prunes
// at start, in batches in the background (src/service/operations/pruner.ts); the bench times it from the fork to
// the server's "retention: pruned rows" log line, and samples the 1 ms route meanwhile (on the newest
// requests, which the prune keeps).
import { performance } from 'node:perf_hooks';
import { call, sampleWhile } from './calls.js';
import { requestView } from './routes.js';
import { PER_DAY, writeHistoryConfig } from './setup.js';
import { startHistoryServer } from './server.js';

/** The targets: done in minutes, the 1 ms route's p99 at or under 50 ms meanwhile. */
export const MAX_PRUNE_MS = 5 * 60_000;
export const PRUNING_P99_MS = 50;
/** Given up after this long (and reported as not done). */
const GIVE_UP_MS = 30 * 60_000;
const DONE_LINE = 'retention: pruned rows';

/**
 * Retention of half the history's days (at least a day) for both outbox rows and finished requests:
 * the older half of the history is due at once, as when retention is first turned on.
 */
export function retentionDays(requests) {
  return Math.max(1, Math.floor(Math.ceil(requests / PER_DAY) / 2));
}

/**
 * Writes a config with retention into `dir` (SQLite: `storage` is { path }, PostgreSQL: { url_env }),
 * starts the server on it and waits for its first prune. Resolves with { days, ms (null: not done),
 * counts (rows removed by kind), route (the 1 ms route's p50/p99/n meanwhile) }.
 */
export async function measureFirstPrune({ dir, storage, env, facts }) {
  const days = retentionDays(facts.requests);
  const configFile = writeHistoryConfig(dir, { ...storage, retention: `${days}d`, retention_requests: `${days}d` });
  const forkedAt = performance.now();
  let ms = null;
  let counts = null;
  const onLog = (entry) => {
    if (!String(entry.msg).startsWith(DONE_LINE)) return;
    ms = performance.now() - forkedAt;
    counts = entry.pruned;
  };
  const server = await startHistoryServer({ configFile, env, facts, forwardLogs: [DONE_LINE, 'retention: pruning failed'], onLog });
  try {
    // Only requests the prune keeps: the newest ones (the first page of the list), not the sampled ids,
    // half of which it removes.
    const { items } = JSON.parse((await call(server.url, '/api/v1/requests')).text);
    const route = await sampleWhile(server.url, requestView({ sampleIds: items.map((r) => r.id) }), () => ms !== null || performance.now() - forkedAt > GIVE_UP_MS);
    return { days, ms, counts, route };
  } finally {
    await server.close();
  }
}

/** "12,345 rows (1,234 requests)" from a prune's counts. */
export function describeCounts(counts) {
  if (!counts) return 'nothing logged';
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  return `${rows.toLocaleString('en-US')} rows (${counts.requests.toLocaleString('en-US')} requests, ${counts.audit.toLocaleString('en-US')} audit, ${counts.deliveries.toLocaleString('en-US')} deliveries)`;
}
