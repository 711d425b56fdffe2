import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askElements } from '../../../src/core/compose-ask.js';
import type { OutboundMessage } from '../../../src/transport/transport.js';
import { askMail, newMessageId, type AskMailContext } from '../../../src/transport/email/ask-mail.js';
import { readReplyToken, readSignedLink, replyToken, signedLink, tokenOfAddress } from '../../../src/transport/email/mail-tokens.js';
import { SmtpSender } from '../../../src/transport/email/smtp-sender.js';
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp-server.js';

const SECRET = 'test-secret-for-mail';
const ASK_ID = 'ask_01JABCDEFGHJKMNPQRSTVWXYZ0';
const OTHER_ASK = 'ask_01JZZZZZZZZZZZZZZZZZZZZZZZ';
const NOW = Date.parse('2026-11-23T10:00:00.000Z');

let server: TestSmtpServer;
let sender: SmtpSender;
beforeAll(async () => {
  server = await startSmtpServer();
  sender = new SmtpSender(server.url, 600);
});
afterAll(async () => {
  sender.close();
  await server.close();
});

const ctx = (extra: Partial<AskMailContext> = {}): AskMailContext => ({
  orgName: 'Acme',
  from: '"Acme expertq" <expertq@acme.example>',
  to: 'dana@acme.example',
  replyDomain: 'reply.acme.example',
  fromLocalPart: 'expertq',
  publicUrl: 'https://expertq.acme.example/',
  secret: SECRET,
  messageId: newMessageId(ASK_ID, 'acme.example'),
  expertId: 'dana',
  ...extra,
});

const elements = askElements({
  orgName: 'Acme',
  expertName: 'Dana Smith',
  consumerId: 'billing-bot',
  askedBecause: 'the invoice total does not match the ledger <b>twice</b> & more',
  question: 'What is the grace period for disputed invoices when the customer pays by `wire` transfer from abroad?',
  guideUrl: 'https://acme.example/expertq-guide',
});

const ask: OutboundMessage = {
  id: 'msg_01JABCDEFGHJKMNPQRSTVWXYZ1',
  channel: 'email',
  expertId: 'dana',
  requestId: 'req_01JABCDEFGHJKMNPQRSTVWXYZ2',
  askId: ASK_ID,
  purpose: 'ask',
  text: elements.join('\n'),
  elements,
  thread: null,
};

/** Sends through SMTP and reads the mail back as the expert's client would. */
async function deliver(message: OutboundMessage, context: AskMailContext): Promise<ParsedMail> {
  const before = server.messages.length;
  await sender.send(askMail(message, context));
  expect(server.messages).toHaveLength(before + 1);
  return simpleParser(server.messages.at(-1)!.raw);
}

/** The paragraphs of the HTML part as a reader sees them: tags gone, entities decoded. */
function htmlParagraphs(html: string): string[] {
  const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  return [...html.matchAll(/<p>([\s\S]*?)<\/p>/g)].map((m) => decode(m[1]!.replace(/<[^>]+>/g, '')));
}

const address = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field[0] : field)?.value[0]?.address ?? '';
const header = (mail: ParsedMail, name: string) => mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, ' ');

describe('an ask by email', () => {
  it('shows the six elements in order, in the text part and in the HTML part, with the opt-out worded for mail', async () => {
    const mail = await deliver(ask, ctx());
    const textParagraphs = mail.text!.trim().split(/\n\n/);
    expect(textParagraphs).toHaveLength(6);
    expect(textParagraphs.slice(0, 5)).toEqual(elements.slice(0, 5));
    const optOut = textParagraphs[5]!;
    expect(optOut).toMatch(/reply with the single word `mute`/);
    expect(optOut).toMatch(/`skip` to pass this one along|pass this one along, reply with the single word `skip`/);
    expect(optOut).toMatch(/stop receiving questions/);
    expect(optOut.endsWith('https://acme.example/expertq-guide')).toBe(true);

    const html = mail.html as string;
    expect(htmlParagraphs(html)).toEqual(textParagraphs.map((p) => p.replace(/`/g, '')));
    // Text from the request is shown, never interpreted as markup; backtick spans are code.
    expect(html).not.toContain('<b>twice</b>');
    expect(html).toContain('&lt;b&gt;twice&lt;/b&gt; &amp; more');
    expect(html).toContain('<code>wire</code>');
    expect(html).toContain('<code>mute</code>');
    expect(html).toContain('<a href="https://acme.example/expertq-guide">');
  });

  it('has a subject with the organisation and the question cut at 60 characters', async () => {
    const mail = await deliver(ask, ctx());
    expect(mail.subject).toBe('Question from Acme: What is the grace period for disputed invoices when the cus…');
    expect(Array.from(mail.subject!.replace('Question from Acme: ', ''))).toHaveLength(60);
  });

  it('keeps its Message-ID, says it is automatic, and offers a one-click unsubscribe that names the expert', async () => {
    const mail = await deliver(ask, ctx());
    expect(mail.messageId).toBe(`<${ASK_ID}@acme.example>`);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const unsubscribe = /^<(https:\/\/[^>]+)>$/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1];
    expect(unsubscribe).toMatch(/^https:\/\/expertq\.acme\.example\/api\/v1\/email\/unsubscribe\?t=[A-Za-z0-9_.-]+$/);
    const value = new URL(unsubscribe!).searchParams.get('t')!;
    expect(readSignedLink(SECRET, 'unsubscribe', value, NOW)).toEqual({ payload: 'dana', expiresAt: null });
  });

  it('has a Reply-To whose token verifies for this ask and expert only, whatever the case of the address', async () => {
    const mail = await deliver(ask, ctx());
    const replyTo = address(mail.replyTo);
    expect(replyTo).toMatch(/^expertq\+[0-9a-z]+@reply\.acme\.example$/);
    const token = readReplyToken(tokenOfAddress(replyTo.toUpperCase())!)!;
    expect(token.askId).toBe(ASK_ID);
    expect(token.verify(SECRET, 'dana')).toBe(true);
    expect(token.verify(SECRET, 'lee')).toBe(false);
    expect(token.verify('another-secret', 'dana')).toBe(false);
    // The same signature under another ask's id does not verify: a reply cannot be moved to another ask.
    const mac = tokenOfAddress(replyTo)!.slice(26);
    const moved = readReplyToken(replyToken(SECRET, OTHER_ASK, 'dana').slice(0, 26) + mac)!;
    expect(moved.askId).toBe(OTHER_ASK);
    expect(moved.verify(SECRET, 'dana')).toBe(false);
  });
});

describe('links in mail', () => {
  it('refuses a tampered, re-purposed or expired link', () => {
    const value = signedLink(SECRET, 'review', 'prop_1:accept:reviewer@acme.example', NOW + 60_000);
    expect(readSignedLink(SECRET, 'review', value, NOW)).toEqual({ payload: 'prop_1:accept:reviewer@acme.example', expiresAt: NOW + 60_000 });
    expect(readSignedLink(SECRET, 'review', value, NOW + 60_000)).toBeNull();
    expect(readSignedLink(SECRET, 'unsubscribe', value, NOW)).toBeNull();
    const [body, mac] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ p: 'prop_1:accept:reviewer@acme.example', e: NOW + 86_400_000 })).toString('base64url');
    expect(readSignedLink(SECRET, 'review', `${forged}.${mac}`, NOW)).toBeNull();
    expect(readSignedLink(SECRET, 'review', `${body}.${mac!.slice(0, -2)}AA`, NOW)).toBeNull();
    expect(readSignedLink(SECRET, 'review', 'not-a-link', NOW)).toBeNull();
  });

  it('reads no ask from a malformed reply token', () => {
    expect(readReplyToken('')).toBeNull();
    expect(readReplyToken('hello')).toBeNull();
    // `u` is not in the alphabet (Crockford base32 leaves it out).
    expect(readReplyToken(replyToken(SECRET, ASK_ID, 'dana').slice(0, -1) + 'u')).toBeNull();
    expect(tokenOfAddress('expertq@reply.acme.example')).toBeNull();
  });
});

describe('what follows an ask by email', () => {
  it('threads an acceptance notice under the ask, with Re: its subject', async () => {
    const sentAsk = await deliver(ask, ctx());
    const notice: OutboundMessage = {
      ...ask,
      id: 'msg_01JABCDEFGHJKMNPQRSTVWXYZ3',
      purpose: 'accepted',
      text: 'Hi Dana, this is the automated assistant for Acme again.\nYour answer was accepted. Thank you!',
      elements: null,
      thread: { channel: 'dana@acme.example', ts: sentAsk.messageId! },
    };
    const mail = await deliver(notice, ctx({ messageId: newMessageId(notice.id, 'acme.example'), askSubject: sentAsk.subject! }));
    expect(mail.inReplyTo).toBe(sentAsk.messageId);
    expect(mail.references).toBe(sentAsk.messageId);
    expect(mail.subject).toBe(`Re: ${sentAsk.subject}`);
    expect(mail.messageId).toBe('<msg_01JABCDEFGHJKMNPQRSTVWXYZ3@acme.example>');
    expect(mail.text).toContain('Your answer was accepted. Thank you!');
    expect(htmlParagraphs(mail.html as string).join(' ')).toContain('Your answer was accepted. Thank you!');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(readReplyToken(tokenOfAddress(address(mail.replyTo))!)!.verify(SECRET, 'dana')).toBe(true);
  });

  it('sends a notice that belongs to no ask unthreaded, replies going to the plain address', async () => {
    const notice: OutboundMessage = { ...ask, askId: null, requestId: null, purpose: 'notice', text: 'You will not be asked questions any more.', elements: null };
    const mail = await deliver(notice, ctx({ messageId: newMessageId('msg_01JNOTICE', 'acme.example') }));
    expect(mail.inReplyTo).toBeUndefined();
    expect(mail.subject).toBe('A note from Acme');
    expect(address(mail.replyTo)).toBe('expertq@reply.acme.example');
  });
});
