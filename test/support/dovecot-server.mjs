// A real IMAP server for the email tests and the email bench: Debian's Dovecot, started in a fresh
// temporary directory, as PostgreSQL is (embedded-postgres.mjs). Plain JavaScript so `npm run bench`
// (which runs dist/ without a TypeScript loader) starts it the same way the tests do.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout } from 'node:timers';
import { join } from 'node:path';

export const DOVECOT = process.env.DOVECOT ?? '/usr/sbin/dovecot';
export const HAVE_DOVECOT = existsSync(DOVECOT);
const START_TIMEOUT_MS = 15_000;

function account(name) {
  const id = (flag) => spawnSync('id', name ? [flag, name] : [flag], { encoding: 'utf8' }).stdout.trim();
  return { name: id('-un'), group: id('-gn'), uid: Number(id('-u')), gid: Number(id('-g')) };
}

/**
 * Who Dovecot's processes run as: the current user, except that as root the login processes and
 * the mail must belong to an unprivileged account (Dovecot refuses root for both): Debian's
 * `dovenull`, else `nobody`.
 */
function accounts() {
  const me = account();
  if (me.uid !== 0) return { internal: me, login: me, mail: me };
  const exists = (name) => spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0;
  const unprivileged = account(exists('dovenull') ? 'dovenull' : 'nobody');
  return { internal: me, login: unprivileged, mail: unprivileged };
}

/** A configuration that keeps everything (sockets, state, log, mail) under `dir` and serves IMAP on 127.0.0.1:`port`. */
function dovecotConfig(dir, port, extra) {
  const { internal, login, mail } = accounts();
  return `# Written by test/support/dovecot-server.mjs: one user, plain text on 127.0.0.1, nothing outside ${dir}.
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# Every process as the current user: a normal user cannot switch users (as root, see accounts()).
default_internal_user = ${internal.name}
default_internal_group = ${internal.group}
default_login_user = ${login.name}
first_valid_uid = ${mail.uid}
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/users
}
# chroot needs root; the login processes need none here.
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
${extra}
`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves once a connection to `port` gets an IMAP greeting; rejects when `failed()` says so or time is up. */
async function waitForGreeting(port, failed) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const why = failed();
    if (why) throw new Error(why);
    const greeted = await new Promise((resolve) => {
      // No timer of its own: Dovecot greets as soon as it accepts, and a hung start is the caller's timeout to report.
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
export async function startDovecot(options = {}) {
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
  let exited = null;
  // Its own process group, so stop() ends the master and every process it started at once.
  const child = spawn(DOVECOT, ['-c', conf, '-F'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const done = new Promise((resolve) => {
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
  // A caller that never reaches stop() (a failing hook) still leaves no server behind.
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
    throw new Error(`${error.message}\n${written}`, { cause: error });
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
