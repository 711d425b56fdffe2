import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { freePort } from './cli.js';
import { accounts, dovecotConfig } from './dovecot-config.js';

/**
 * A real IMAP server for the email tests: Debian's Dovecot (`apt-get install -y dovecot-imapd`),
 * started by the tests in a fresh temporary directory, as PostgreSQL is. Everything it writes (its
 * sockets, state, log and the one user's Maildir) stays in that directory, and Dovecot's processes
 * run as the current user (as root, its login processes and the mail as an unprivileged account), so
 * it works as root and as a normal user alike. Without Dovecot the tests that use it skip with a
 * hint, except with CI=true, where a missing Dovecot fails the run.
 */
export const DOVECOT = process.env.DOVECOT ?? '/usr/sbin/dovecot';
const IN_CI = process.env.CI === 'true';
export const HAVE_DOVECOT = existsSync(DOVECOT);
const START_TIMEOUT_MS = 15_000;

if (!HAVE_DOVECOT && !IN_CI) {
  console.warn(`Skipping the IMAP tests: ${DOVECOT} is missing. Install it with: apt-get install -y dovecot-imapd (as root).`);
}

// With CI=true a missing Dovecot is a failure, not a skip. (Registered only then, so a run with
// Dovecot present reports no skipped test.)
if (!HAVE_DOVECOT && IN_CI) {
  describe('dovecot', () => {
    it('dovecot is installed (CI)', () => {
      throw new Error(`${DOVECOT} is missing: CI must install it (apt-get install -y dovecot-imapd) before npm test.`);
    });
  });
}

export interface Dovecot {
  /** `imap://user:password@127.0.0.1:port`, ready for `ImapInbox`. */
  url: string;
  user: string;
  password: string;
  host: string;
  port: number;
  /** The temporary directory (config, log, Maildir). */
  dir: string;
  /** Dovecot's log so far, for failure messages. */
  log(): string;
  /** Ends every IMAP session of the user (as a dropped connection would), keeping the server up. */
  kick(): void;
  /** Ends the server and deletes its directory; safe to call more than once. */
  stop(): Promise<void>;
}

export interface DovecotOptions {
  /** Lines added to dovecot.conf, e.g. `imap_capability = IMAP4rev1` to serve without IDLE. */
  extraConfig?: string;
}

/** Resolves once a connection to `port` gets an IMAP greeting; rejects when `failed()` says so or time is up. */
async function waitForGreeting(port: number, failed: () => string | null): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const why = failed();
    if (why) throw new Error(why);
    const greeted = await new Promise<boolean>((resolve) => {
      // No timer of its own: Dovecot greets as soon as it accepts, and a hung start is the test's timeout to report.
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('* OK'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (greeted) return;
    if (Date.now() > deadline) throw new Error(`dovecot gave no IMAP greeting on port ${port} within ${START_TIMEOUT_MS} ms`);
    // A retry after a refused connection: the listener comes up within milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts Dovecot on a free port of 127.0.0.1 with one user whose mail is a Maildir in a fresh temporary directory. */
export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-dovecot-'));
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub));
  const user = 'expert';
  const password = 'imap-test-password';
  const host = '127.0.0.1';
  const port = await freePort();
  const { mail } = accounts();
  // As root the login processes (another user) reach the sockets under run/, and the mail user its Maildir.
  chmodSync(dir, 0o755);
  chownSync(join(dir, 'mail'), mail.uid, mail.gid);
  writeFileSync(join(dir, 'users'), `${user}:{PLAIN}${password}:${mail.uid}:${mail.gid}::${dir}/mail/${user}\n`);
  const conf = join(dir, 'dovecot.conf');
  writeFileSync(conf, dovecotConfig(dir, port, options.extraConfig ?? ''));
  const logFile = join(dir, 'dovecot.log');
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');

  let output = '';
  let exited: string | null = null;
  // Its own process group, so stop() ends the master and every process it started at once.
  const child: ChildProcess = spawn(DOVECOT, ['-c', conf, '-F'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const done = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `dovecot exited (${signal ?? code}): ${output}${log()}`;
      resolve();
    });
    child.once('error', (error) => {
      exited = `dovecot did not start: ${error.message}`;
      resolve();
    });
  });

  // A SIGTERM makes Dovecot wait a second for its sessions; nothing here needs a clean shutdown.
  const kill = () => {
    if (!exited && child.pid) process.kill(-child.pid, 'SIGKILL');
  };
  // A test that never reaches stop() (a failing hook) still leaves no server behind.
  process.once('exit', kill);
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      process.off('exit', kill);
      kill();
      await done;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForGreeting(port, () => exited);
  } catch (error) {
    const written = log();
    await stop();
    throw new Error(`${(error as Error).message}\n${written}`, { cause: error });
  }
  return {
    url: `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}`,
    user,
    password,
    host,
    port,
    dir,
    log,
    kick() {
      const run = spawnSync('/usr/bin/doveadm', ['-c', conf, 'kick', user], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`doveadm kick failed: ${run.stdout}${run.stderr}`);
    },
    stop,
  };
}
