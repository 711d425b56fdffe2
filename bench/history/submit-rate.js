// Submit throughput on a history: POST /requests through the real server for a few seconds with a few
// concurrent clients (autocannon in a child, bench/load.js), against the same on an empty database of
// the same organisation, measured in the same run: submits must not slow down as history grows.
import { runSubmitLoad } from '../load.js';
import { ADMIN_TOKEN } from './setup.js';
import { startHistoryServer } from './server.js';

export const SUBMIT_SECONDS = 5;
/**
 * Submits sent first and not counted, on both databases: the first seconds of a server's first submits
 * run while its code is still being compiled (and, on a big history, while the pages the inserts touch
 * come back into memory after the backup), which measures the start, not the history.
 */
export const SUBMIT_WARM_SECONDS = 2;
export const SUBMIT_CONNECTIONS = 4;
/** Target: on the history, at least this share of the empty database's throughput. */
export const MIN_SUBMIT_RATIO = 0.7;

/**
 * Submits to a running server for SUBMIT_WARM_SECONDS, then for SUBMIT_SECONDS; resolves with the
 * second run's autocannon summary (bench/load-child.js). Every question is new (no deduplication).
 */
export async function measureSubmits(server) {
  await submitFor(server, SUBMIT_WARM_SECONDS, 20_000_000);
  return submitFor(server, SUBMIT_SECONDS, 10_000_000);
}

async function submitFor(server, seconds, firstBody) {
  const result = await runSubmitLoad({ url: server.url, seconds, connections: SUBMIT_CONNECTIONS, token: ADMIN_TOKEN, firstBody });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`submits: ${result.non2xx} non-2xx, ${result.errors} errors, e.g. ${JSON.stringify(result.failures)}`);
  return result;
}

/** The same load on a server started from `configFile` on an empty database (the reference). */
export async function measureSubmitsEmpty({ configFile, env }) {
  const server = await startHistoryServer({ configFile, env, facts: { endsAt: Date.now() } });
  try {
    return await measureSubmits(server);
  } finally {
    await server.close();
  }
}
