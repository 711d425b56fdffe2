import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './embedded-postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose user may create databases: each test makes its own. */
    postgresUrl: string;
  }
}

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
  const server = await startEmbeddedPostgres({
    port: await freePort(),
    password: 'expertq-test',
    // Tests favour speed over durability; the server is thrown away afterwards.
    flags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
  });
  project.provide('postgresUrl', server.url());
  return () => server.stop();
}
