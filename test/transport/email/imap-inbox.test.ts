import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImapInbox, type ImapInboxOptions } from '../../../src/transport/email/imap-inbox.js';
import { captureLogger } from '../../support/capture.js';
import { HAVE_DOVECOT, startDovecot, type Dovecot, type DovecotOptions } from '../../support/dovecot.js';
import { until } from '../../support/until.js';

const WAIT_MS = 10_000;
/** Long enough that only IDLE (or a retry) can start a pass within a test. */
const NO_POLL_MS = 600_000;

/** A reply as an expert's mail client would send it. */
async function mime(subject: string): Promise<Buffer> {
  return new MailComposer({
    from: 'Ada <ada@example.com>',
    to: 'expertq@acme.example',
    subject,
    text: `About ${subject}: thirty days.`,
    messageId: `<${subject.replace(/\W/g, '-')}@example.com>`,
  })
    .compile()
    .build();
}

const subjectOf = (raw: Buffer) => /^Subject: (.*)$/m.exec(raw.toString())?.[1]?.trim() ?? '?';

/** The second client: drops mail into the mailbox and looks at where it ended. */
class Mailbox {
  constructor(private readonly client: ImapFlow) {}
  static async open(server: Dovecot): Promise<Mailbox> {
    const client = new ImapFlow({ host: server.host, port: server.port, auth: { user: server.user, pass: server.password }, logger: false });
    await client.connect();
    return new Mailbox(client);
  }
  async append(subject: string, flags: string[] = []): Promise<void> {
    await this.client.append('INBOX', await mime(subject), flags);
  }
  async folders(): Promise<string[]> {
    return (await this.client.list()).map((mailbox) => mailbox.path);
  }
  /** Subject and flags of each message in `folder`, in UID order. */
  async messages(folder: string): Promise<Array<{ subject: string; seen: boolean }>> {
    const lock = await this.client.getMailboxLock(folder, { readOnly: true });
    try {
      if (this.client.mailbox && this.client.mailbox.exists === 0) return [];
      const all = await this.client.fetchAll('1:*', { envelope: true, flags: true });
      return all.map((m) => ({ subject: m.envelope?.subject ?? '?', seen: m.flags?.has('\\Seen') ?? false }));
    } finally {
      // Closed, so the next look selects the folder afresh instead of trusting a stale count.
      await this.client.mailboxClose();
      lock.release();
    }
  }
  async close(): Promise<void> {
    if (this.client.usable) await this.client.logout();
  }
}

describe.runIf(HAVE_DOVECOT)('ImapInbox against Dovecot', () => {
  let server: Dovecot;
  let mailbox: Mailbox;
  let inbox: ImapInbox | null = null;
  const { log, logs } = captureLogger();
  /** Subjects in the order the handler got them. */
  let received: string[] = [];

  async function serve(options: DovecotOptions = {}): Promise<void> {
    server = await startDovecot(options);
    mailbox = await Mailbox.open(server);
  }

  function inboxFor(overrides: Partial<ImapInboxOptions> = {}): ImapInbox {
    inbox = new ImapInbox({
      url: server.url,
      log,
      pollMs: NO_POLL_MS,
      onMessage: async (raw) => {
        received.push(subjectOf(raw));
      },
      ...overrides,
    });
    return inbox;
  }

  const processed = () => mailbox.messages('expertq-processed');
  const detail = () => `received: ${JSON.stringify(received)}\nlogs:\n${logs.text}\ndovecot:\n${server.log()}`;

  beforeEach(() => {
    received = [];
    logs.chunks = [];
  });

  afterEach(async () => {
    try {
      await inbox?.stop();
      await mailbox?.close();
    } finally {
      inbox = null;
      await server?.stop();
    }
  });

  it('hands each message to the handler once, oldest first, those already there and those arriving while idle, and files them away as seen', async () => {
    await serve();
    await mailbox.append('first');
    await mailbox.append('second');
    const reader = inboxFor();
    expect(reader.notReady()).toMatch(/not started/);
    await reader.start();
    expect(reader.notReady()).toBeNull();
    await until(() => received.length === 2, WAIT_MS, 'the two waiting messages are handled', detail);
    // With polling off, only the server's IDLE notice can bring this one in.
    await mailbox.append('third');
    await until(async () => (await processed()).length === 3, WAIT_MS, 'all three are in expertq-processed', detail);
    expect(received).toEqual(['first', 'second', 'third']);
    expect(await processed()).toEqual([
      { subject: 'first', seen: true },
      { subject: 'second', seen: true },
      { subject: 'third', seen: true },
    ]);
    expect(await mailbox.messages('INBOX')).toEqual([]);
    expect(logs.lines.find((l) => l.msg === 'email: reading the IMAP inbox')).toMatchObject({ idle: true });
  });

  it('takes a message already marked read in the inbox (opened by someone, or marked just before a crash) and files it away', async () => {
    await serve();
    await mailbox.append('read already', ['\\Seen']);
    await mailbox.append('new');
    await inboxFor().start();
    await until(async () => (await processed()).length === 2, WAIT_MS, 'both are in expertq-processed', detail);
    expect(received).toEqual(['read already', 'new']);
    expect(await mailbox.messages('INBOX')).toEqual([]);
  });

  it('leaves a message whose handler throws in the inbox, unseen, and handles it on a later pass', async () => {
    await serve();
    await mailbox.append('tricky');
    let failing = true;
    let attempts = 0;
    const reader = inboxFor({
      pollMs: 50,
      onMessage: async (raw) => {
        attempts += 1;
        if (failing) throw new Error('the database is away');
        received.push(subjectOf(raw));
      },
    });
    await reader.start();
    await until(() => attempts >= 2, WAIT_MS, 'the failed message is offered again', detail);
    expect(await mailbox.messages('INBOX')).toEqual([{ subject: 'tricky', seen: false }]);
    expect(await processed()).toEqual([]);
    expect(logs.lines.find((l) => l.level === 40 && /retried/.test(String(l.msg)))).toBeDefined();
    failing = false;
    await until(async () => (await processed()).length === 1, WAIT_MS, 'the message is filed once it is handled', detail);
    expect(received).toEqual(['tricky']);
    expect(await mailbox.messages('INBOX')).toEqual([]);
  });

  it('handles one message at a time: mail arriving during a slow handler waits for the next pass', async () => {
    await serve();
    await mailbox.append('slow');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let most = 0;
    const reader = inboxFor({
      onMessage: async (raw) => {
        running += 1;
        most = Math.max(most, running);
        if (subjectOf(raw) === 'slow') await released;
        received.push(subjectOf(raw));
        running -= 1;
      },
    });
    await reader.start();
    await until(() => running === 1, WAIT_MS, 'the slow message is in hand', detail);
    await mailbox.append('quick');
    release();
    await until(async () => (await processed()).length === 2, WAIT_MS, 'both are filed', detail);
    expect(received).toEqual(['slow', 'quick']);
    expect(most).toBe(1);
  });

  it('after stop and a new start handles only what arrived meanwhile', async () => {
    await serve();
    await mailbox.append('before');
    const reader = inboxFor();
    await reader.start();
    await until(async () => (await processed()).length === 1, WAIT_MS, 'the first message is filed', detail);
    await reader.stop();
    expect(reader.notReady()).toMatch(/not started/);
    await mailbox.append('while stopped');
    await reader.start();
    await until(async () => (await processed()).length === 2, WAIT_MS, 'the second message is filed', detail);
    expect(received).toEqual(['before', 'while stopped']);
  });

  it('creates the processed folder when it is missing, under the name it is given', async () => {
    await serve();
    expect(await mailbox.folders()).not.toContain('answered');
    await mailbox.append('one');
    await inboxFor({ processedFolder: 'answered' }).start();
    expect(await mailbox.folders()).toContain('answered');
    await until(async () => (await mailbox.messages('answered')).length === 1, WAIT_MS, 'the message is filed in answered', detail);
    expect(received).toEqual(['one']);
  });

  it('reconnects when the server drops the session, and mail keeps coming in', async () => {
    await serve();
    const reader = inboxFor();
    await reader.start();
    // Ends every session of the user, the test's own included.
    server.kick();
    await until(() => logs.lines.filter((l) => l.msg === 'email: reading the IMAP inbox').length === 2, WAIT_MS, 'the inbox reconnected', detail);
    expect(logs.lines.find((l) => l.msg === 'email: the IMAP connection failed')).toBeDefined();
    mailbox = await Mailbox.open(server);
    await mailbox.append('after the drop');
    await until(async () => (await processed()).length === 1, WAIT_MS, 'the message is filed', detail);
    expect(received).toEqual(['after the drop']);
    expect(reader.notReady()).toBeNull();
  });

  it('polls every pollMs on a server without IDLE', async () => {
    await serve({ extraConfig: 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR ID ENABLE UIDPLUS MOVE\n' });
    const reader = inboxFor({ pollMs: 50 });
    await reader.start();
    expect(logs.lines.find((l) => l.msg === 'email: reading the IMAP inbox')).toMatchObject({ idle: false });
    await mailbox.append('polled');
    await until(async () => (await processed()).length === 1, WAIT_MS, 'the message is filed', detail);
    expect(received).toEqual(['polled']);
  });

  it('says why it is not ready while the server cannot be reached, and stops without waiting for a retry', async () => {
    await serve();
    const unreachable = server.url.replace(`:${server.port}`, ':1');
    const reader = inboxFor({ url: unreachable });
    await reader.start();
    expect(reader.notReady()).toMatch(/cannot read the IMAP inbox at 127\.0\.0\.1:1/);
    expect(logs.text).not.toContain(server.password);
    await reader.stop();
    expect(reader.notReady()).toMatch(/not started/);
  });
});
