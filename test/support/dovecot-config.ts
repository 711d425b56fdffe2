import { spawnSync } from 'node:child_process';

// The dovecot.conf test/support/dovecot.ts writes, and the accounts Dovecot's processes run as.

export interface Account {
  name: string;
  group: string;
  uid: number;
  gid: number;
}

function account(name?: string): Account {
  const id = (flag: string) => spawnSync('id', name ? [flag, name] : [flag], { encoding: 'utf8' }).stdout.trim();
  return { name: id('-un'), group: id('-gn'), uid: Number(id('-u')), gid: Number(id('-g')) };
}

/**
 * Who Dovecot's processes run as: the current user, except that as root the login processes and
 * the mail must belong to an unprivileged account (Dovecot refuses root for both): Debian's
 * `dovenull`, else `nobody`.
 */
export function accounts(): { internal: Account; login: Account; mail: Account } {
  const me = account();
  if (me.uid !== 0) return { internal: me, login: me, mail: me };
  const exists = (name: string) => spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0;
  const unprivileged = account(exists('dovenull') ? 'dovenull' : 'nobody');
  return { internal: me, login: unprivileged, mail: unprivileged };
}

/** A configuration that keeps everything (sockets, state, log, mail) under `dir` and serves IMAP on 127.0.0.1:`port`. */
export function dovecotConfig(dir: string, port: number, extra: string): string {
  const { internal, login, mail } = accounts();
  return `# Written by test/support/dovecot.ts: one user, plain text on 127.0.0.1, nothing outside ${dir}.
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
