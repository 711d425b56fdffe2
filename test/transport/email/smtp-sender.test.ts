import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/transport/transport.js';
import { SmtpSender } from '../../../src/transport/email/smtp-sender.js';
import { startSmtpServer } from '../../support/smtp-server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serverAndSender(options: Parameters<typeof startSmtpServer>[0] = {}, url?: (u: string) => string) {
  const server = await startSmtpServer(options);
  cleanups.push(() => server.close());
  const sender = new SmtpSender(url ? url(server.url) : server.url, 600);
  cleanups.push(() => sender.close());
  return { server, sender };
}

const mail = (to = 'dana@acme.example') => ({
  from: 'expertq@acme.example',
  to,
  subject: 'Question from Acme: Why?',
  text: 'Why?',
  messageId: '<ask_01JABCDEFGHJKMNPQRSTVWXYZ0@acme.example>',
});

/** The TransportError a send rejects with (fails the test when it resolves or throws anything else). */
async function failure(send: Promise<unknown>): Promise<TransportError> {
  const error = await send.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(TransportError);
  return error as TransportError;
}

describe('SmtpSender', () => {
  it('delivers a mail with the Message-ID it was given, logging in when the URL has credentials', async () => {
    const { server, sender } = await serverAndSender({ auth: { user: 'expertq', pass: 's3cret/with:chars' } });
    await sender.verify();
    const sent = await sender.send(mail());
    expect(sent.messageId).toBe('<ask_01JABCDEFGHJKMNPQRSTVWXYZ0@acme.example>');
    expect(server.messages).toHaveLength(1);
    expect(server.messages[0]!.envelope).toEqual({ from: 'expertq@acme.example', to: ['dana@acme.example'] });
    const parsed = await simpleParser(server.messages[0]!.raw);
    expect(parsed.messageId).toBe(sent.messageId);
    expect(parsed.text?.trim()).toBe('Why?');
  });

  it.each([
    { reply: 550, permanent: true, why: 'for good (5xx): the ask moves to the next channel' },
    { reply: 450, permanent: false, why: 'for now (4xx): the outbox retries' },
  ])('fails $why when the server answers $reply for the recipient', async ({ reply, permanent }) => {
    const { server, sender } = await serverAndSender();
    server.rejectRecipient('gone@acme.example', reply);
    const error = await failure(sender.send(mail('Gone@acme.example')));
    expect(error).toMatchObject({ code: `smtp_${reply}`, permanent });
    expect(server.messages).toHaveLength(0);
    // Another expert's mail still goes out.
    await sender.send(mail());
    expect(server.messages).toHaveLength(1);
  });

  it('fails for now when the mail server is down, for a send and for verify', async () => {
    const server = await startSmtpServer();
    await server.close();
    const sender = new SmtpSender(server.url, 600);
    cleanups.push(() => sender.close());
    expect(await failure(sender.send(mail()))).toMatchObject({ code: 'smtp_unreachable', permanent: false });
    expect(await failure(sender.verify())).toMatchObject({ code: 'smtp_unreachable', permanent: false });
  });

  it('fails for now, not for good, when the server refuses our login: the fault is ours, not the expert address', async () => {
    const { server, sender } = await serverAndSender({ auth: { user: 'expertq', pass: 'right' } }, (u) => u.replace(':right@', ':wrong@'));
    const error = await failure(sender.send(mail()));
    expect(error).toMatchObject({ code: 'smtp_auth', permanent: false });
    expect(server.messages).toHaveLength(0);
  });
});
