import { rmSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { submitBody } from '../support/build-test-app.js';
import { childConfig } from '../support/child-config.js';
import { cleanEnv, TEST_TOKEN } from '../support/cli.js';
import { HAVE_DOVECOT, startDovecot, type Dovecot } from '../support/dovecot.js';
import { EMAIL_EXPERTS, FROM, startEmailKit, type EmailKit } from '../support/email-kit.js';
import { composeMail } from '../support/inbound-mail.js';
import { ServerChild } from '../support/server-child.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { until } from '../support/until.js';

const WAIT_MS = 20_000;

/** The asked expert's reply to a question mail, as their mail client files it. */
function replyTo(ask: ParsedMail, text: string): Promise<Buffer> {
  return composeMail({
    from: (ask.to as { value: Array<{ address: string }> }).value[0]!.address,
    to: (ask.replyTo as { value: Array<{ address: string }> }).value[0]!.address,
    subject: `Re: ${ask.subject}`,
    inReplyTo: ask.messageId,
    references: [ask.messageId!],
    messageId: `<reply-${ask.messageId!.slice(1, 12)}-${Math.random().toString(36).slice(2)}@acme.example>`,
    text: `${text}\n\nOn Mon, 7 Dec 2026 at 10:00, Acme expertq <expertq@acme.example> wrote:\n> ${ask.subject}\n`,
  });
}

/** A second client on the mailbox: drops replies into INBOX and counts what is where. */
async function mailbox(server: Dovecot): Promise<{ append(raw: Buffer): Promise<void>; count(folder: string): Promise<number>; close(): Promise<void> }> {
  const client = new ImapFlow({ host: server.host, port: server.port, auth: { user: server.user, pass: server.password }, logger: false });
  await client.connect();
  return {
    append: async (raw) => void (await client.append('INBOX', raw)),
    count: async (folder) => {
      if (!(await client.list()).some((m) => m.path === folder)) return 0;
      const status = await client.status(folder, { messages: true });
      return status ? (status.messages ?? 0) : 0;
    },
    close: async () => void (client.usable && (await client.logout())),
  };
}

describe.runIf(HAVE_DOVECOT)('email replies read from an IMAP mailbox', () => {
  let dovecot: Dovecot | null = null;
  let kit: EmailKit | null = null;
  let smtp: TestSmtpServer | null = null;
  let child: ServerChild | null = null;
  let dir: string | null = null;
  afterEach(async () => {
    await kit?.close();
    await child?.kill9();
    await smtp?.close();
    await dovecot?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    kit = smtp = child = dovecot = dir = null;
  });

  it('a reply filed in the mailbox becomes a proposal, and the mail is moved to expertq-processed', async () => {
    dovecot = await startDovecot();
    kit = await startEmailKit({ config: { email: { imap_url_env: 'IMAP_URL' } }, env: { IMAP_URL: dovecot.url } });
    const submitted = await kit.call('POST', '/api/v1/requests', submitBody());
    const box = await mailbox(dovecot);
    await box.append(await replyTo((await kit.mails())[0]!, 'Thirty days, weekends included.'));
    await until(async () => (await kit!.call('GET', `/api/v1/requests/${submitted.body.request_id}`)).body.status === 'proposed', WAIT_MS, 'the reply became a proposal');
    expect((await kit.call('GET', '/api/v1/proposals?status=pending')).body[0].answer).toBe('Thirty days, weekends included.');
    await until(async () => (await box.count('expertq-processed')) === 1, WAIT_MS, 'the reply was filed');
    expect(await box.count('INBOX')).toBe(0);
    await box.close();
  });

  it('kill -9 while replies are being read loses none and answers each once', async () => {
    dovecot = await startDovecot();
    smtp = await startSmtpServer();
    let configFile: string;
    let base: string;
    ({ dir, configFile, base } = await childConfig('expertq-imap-kill-', {
      defaults: { max_open_asks_per_expert: 50, max_asks_per_expert_per_day: 50 },
      email: { smtp_url_env: 'SMTP_URL', from: FROM, imap_url_env: 'IMAP_URL' },
      experts: EMAIL_EXPERTS,
    }));
    child = new ServerChild(configFile, cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN, SMTP_URL: smtp.url, IMAP_URL: dovecot.url }));
    await child.start();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as { request_id: string } & Record<string, unknown>;
    };
    const N = 20;
    for (let i = 0; i < N; i++) await api('POST', '/requests', submitBody({ question: `Question number ${i}: how long do refunds take?` }));
    await until(async () => smtp!.messages.length >= N, WAIT_MS, 'every question was mailed');
    const asks = await Promise.all(smtp.messages.map((m) => simpleParser(m.raw)));
    const box = await mailbox(dovecot);
    for (const ask of asks) await box.append(await replyTo(ask, 'Thirty days.'));

    // Killed once the first reply is in, with the rest being read.
    await until(async () => ((await api('GET', '/proposals?status=pending')) as unknown as unknown[]).length >= 1, WAIT_MS, 'the first reply became a proposal', () => child!.diagnostics());
    await child.kill9();
    await child.start();
    await until(async () => (await box.count('expertq-processed')) === N, WAIT_MS, 'every reply was filed', () => child!.diagnostics());
    const pending = (await api('GET', '/proposals?status=pending')) as unknown as Array<{ request_id: string }>;
    expect(pending).toHaveLength(N);
    expect(new Set(pending.map((p) => p.request_id)).size).toBe(N);
    expect(await box.count('INBOX')).toBe(0);
    await box.close();
  });
});
