// The server under measurement: the real `startServer` in a child process (bench/pg-server-child.js) on
// a history database, its clock set back to where the history ended.
import { performance } from 'node:perf_hooks';
import { startServerChild } from '../pg-servers.js';
import { TOKEN_ENV } from './setup.js';

/**
 * Starts the server from `configFile` (with `env`) and resolves once it listens, with `startMs` (from
 * fork to listening). The server's clock starts where the history ended, so it sees the history as it
 * was built: the last day's requests open, today's asks counted (and a cached history measures the same
 * a week later). `onLog` gets the child's log lines whose message starts with one of `forwardLogs`.
 */
export async function startHistoryServer({ configFile, env, facts, forwardLogs = [], onLog }) {
  const startedAt = performance.now();
  const clockOffsetMs = Math.max(0, Date.now() - facts.endsAt);
  const server = await startServerChild('expertq', { kind: 'expertq', configFile, env: { ...TOKEN_ENV, ...env }, clockOffsetMs, forwardLogs }, onLog);
  return { ...server, startedAt, startMs: performance.now() - startedAt };
}
