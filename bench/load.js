// Load generation: one autocannon run against a listening server, from a child process.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CONNECTIONS = 50;

/** Benchmark duration per target in seconds (env BENCH_SECONDS, default 10). */
export function benchSeconds() {
  const raw = process.env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return 10;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`BENCH_SECONDS must be a positive number, got "${raw}"`);
  return seconds;
}

/**
 * POSTs varied, valid submit bodies to `url + path` for `seconds` with `connections` connections.
 * `firstBody` numbers the first body (two generators at once start far apart, so no two bodies are alike);
 * `token`, when given, goes in each request's `authorization: Bearer` header; `rate` caps the requests per second.
 * Resolves with the summary the child computed (see load-child.js).
 */
export function runSubmitLoad({ url, path = '/api/v1/requests', seconds = benchSeconds(), connections = CONNECTIONS, seed = 42, firstBody = 0, token, rate }) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-child.js', import.meta.url)), [
      JSON.stringify({ url, path, connections, seconds, seed, firstBody, token, rate }),
    ]);
    let outcome = null;
    child.once('message', (message) => {
      outcome = message;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (outcome?.result) resolve(outcome.result);
      else if (outcome?.error) reject(new Error(`autocannon failed: ${outcome.error}`));
      else reject(new Error(`load generator exited (${signal ?? code}) before reporting`));
    });
  });
}
