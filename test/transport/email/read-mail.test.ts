import type Mail from 'nodemailer/lib/mailer';
import { describe, expect, it } from 'vitest';
import { mailCommand, readInboundMail, type InboundMail } from '../../../src/transport/email/read-mail.js';
import { ASK_ID, ASK_SUBJECT, ASK_TEXT, composeMail, composeReply, postfixReport, REPLY } from '../../support/inbound-mail.js';

const ANSWER = 'Rotate them with `vault rotate signing`, then restart the edge proxies.\nDo it monthly.';
const quoted = (text: string) => text.split('\n').map((l) => `> ${l}`).join('\n');

async function replyText(mail: Promise<Buffer | string>): Promise<string> {
  const read = await readInboundMail(await mail, REPLY);
  expect(read.kind).toBe('reply');
  return read.kind === 'reply' ? read.text : '';
}

describe('readInboundMail: the expert’s answer without what they quoted', () => {
  it('cuts a Gmail-style quote ("On … wrote:" and > lines)', async () => {
    const text = `${ANSWER}\n\nOn Mon, 7 Dec 2026 at 10:00, expertq <expertq+tok1@acme.example> wrote:\n${quoted(ASK_TEXT)}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it('cuts a Gmail quote whose "wrote:" line the client wrapped', async () => {
    const text = `${ANSWER}\n\nOn Mon, 7 Dec 2026 at 10:00, Acme expertq <\nexpertq+tok1@acme.example> wrote:\n\n${quoted(ASK_TEXT)}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it.each([
    ['with the sender’s address', 'From: Acme expertq <expertq+tok1@acme.example>'],
    ['with a mailto address', 'From: Acme expertq [mailto:expertq+tok1@acme.example]'],
  ])('cuts an Outlook-style header block, no > lines (%s)', async (_name, fromLine) => {
    const block = `${fromLine}\nSent: Monday, December 7, 2026 10:00 AM\nTo: Ada Lovelace <ada@example.org>\nSubject: ${ASK_SUBJECT}`;
    expect(await replyText(composeReply({ text: `${ANSWER}\n\n${block}\n\n${ASK_TEXT}\n` }))).toBe(ANSWER);
  });

  it('cuts an Outlook "-----Original Message-----" quote', async () => {
    const text = `${ANSWER}\n\n-----Original Message-----\nFrom: expertq\nSent: Monday, December 7, 2026 10:00 AM\nTo: Ada Lovelace\nSubject: ${ASK_SUBJECT}\n\n${ASK_TEXT}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it('cuts an Outlook quote under a line of underscores', async () => {
    const text = `${ANSWER}\n\n________________________________\nFrom: expertq\nSent: Monday, December 7, 2026 10:00 AM\nTo: Ada Lovelace\nSubject: ${ASK_SUBJECT}\n\n${ASK_TEXT}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  // email-reply-parser misses these two: a header block whose From names no address, and the line of
  // dashes an HTML reply's <hr> becomes above Outlook's quote.
  it('cuts an Outlook header block whose From has no address', async () => {
    const text = `${ANSWER}\n\nFrom: expertq\nSent: Monday, December 7, 2026 10:00 AM\nTo: Ada Lovelace\nSubject: ${ASK_SUBJECT}\n\n${ASK_TEXT}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it('cuts an Outlook HTML-only reply below its rule', async () => {
    const html =
      '<html><body><div>Rotate them with vault rotate signing.</div><div>Do it monthly.</div>' +
      '<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt">' +
      '<b>From:</b> Acme expertq<br><b>Sent:</b> Monday, December 7, 2026 10:00 AM<br><b>To:</b> Ada Lovelace &lt;ada@example.org&gt;<br>' +
      `<b>Subject:</b> ${ASK_SUBJECT}<br></font><div>&nbsp;</div></div><div>${ASK_TEXT.replace(/\n/g, '<br>')}</div></body></html>`;
    expect(await replyText(composeReply({ html }))).toBe('Rotate them with vault rotate signing.\nDo it monthly.');
  });

  it('cuts the signature after a "-- " line', async () => {
    const text = `${ANSWER}\n\n-- \nAda Lovelace\nPrincipal Engineer, Key Service\n+44 20 7946 0000\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it('cuts a signature and a quote together', async () => {
    const text = `${ANSWER}\n\n-- \nAda Lovelace\n\nOn Mon, 7 Dec 2026 at 10:00, expertq <expertq+tok1@acme.example> wrote:\n${quoted(ASK_TEXT)}\n`;
    expect(await replyText(composeReply({ text }))).toBe(ANSWER);
  });

  it('turns an HTML-only reply into text and cuts its quoted original', async () => {
    const html =
      '<div dir="ltr"><p>Rotate them with <code>vault rotate signing</code>, then restart the edge proxies.<br>Do it monthly.</p></div>' +
      '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 7 Dec 2026 at 10:00, expertq &lt;expertq+tok1@acme.example&gt; wrote:<br></div>' +
      `<blockquote class="gmail_quote"><p>${ASK_TEXT.replace(/\n/g, '<br>')}</p></blockquote></div>`;
    const text = await replyText(composeReply({ html }));
    expect(text).toBe('Rotate them with vault rotate signing, then restart the edge proxies.\nDo it monthly.');
  });

  it('turns an HTML-only reply with an attachment into text', async () => {
    const html = '<p>The runbook is attached.</p><blockquote><p>How do we rotate the signing keys?</p></blockquote>';
    const text = await replyText(composeReply({ html, attachments: [{ filename: 'runbook.txt', content: 'step 1' }] }));
    expect(text).toBe('The runbook is attached.');
  });

  it('keeps an answer that has no quote at all, and a multi-paragraph answer whole', async () => {
    const text = 'First, rotate.\n\nSecond, restart the proxies.\n\nThird, check the dashboards.';
    expect(await replyText(composeReply({ text }))).toBe(text);
    const headersInAnswer = 'The alert mail must carry:\nFrom: alerts@acme.example\nDate: the time of the alert\n\nNothing else.';
    expect(await replyText(composeReply({ text: headersInAnswer }))).toBe(headersInAnswer);
  });
});

describe('readInboundMail: the fields a reply is matched by', () => {
  it('reads the token from the reply address, the thread and the sender', async () => {
    const read = await readInboundMail(await composeReply({ from: 'Ada Lovelace <Ada@Example.ORG>', text: 'Yes.', references: [ASK_ID, '<older@acme.example>'] }, 'Abc123_x'), REPLY);
    expect(read).toMatchObject({ kind: 'reply', from: 'ada@example.org', token: 'Abc123_x', messageId: '<reply-1@example.org>', subject: `Re: ${ASK_SUBJECT}` });
    expect(read.references).toEqual([ASK_ID, '<older@acme.example>']);
  });

  it('has no token when the reply went to the plain address, and keeps In-Reply-To first', async () => {
    const raw = await composeReply({ to: 'expertq@acme.example', inReplyTo: ASK_ID, references: ['<first@acme.example>', ASK_ID], text: 'Yes.' });
    const read = await readInboundMail(raw, REPLY);
    expect(read).toMatchObject({ kind: 'reply', token: null });
    expect(read.references).toEqual([ASK_ID, '<first@acme.example>']);
  });

  it('finds the token in Cc, Delivered-To or X-Original-To, in any case', async () => {
    const viaCc = await composeReply({ to: 'team@example.org', cc: 'EXPERTQ+tok9@ACME.example', text: 'Yes.' });
    const viaDelivered = await composeReply({ to: 'experts@lists.example.org', headers: { 'Delivered-To': 'expertq+tok7@acme.example' }, text: 'Yes.' });
    const viaOriginal = await composeReply({ to: 'undisclosed-recipients:;', headers: { 'X-Original-To': '<expertq+tok5@acme.example>' }, text: 'Yes.' });
    expect((await readInboundMail(viaCc, REPLY)).token).toBe('tok9');
    expect((await readInboundMail(viaDelivered, REPLY)).token).toBe('tok7');
    expect((await readInboundMail(viaOriginal, REPLY)).token).toBe('tok5');
  });

  it('ignores plus addresses of another local part or domain', async () => {
    const raw = await composeReply({ to: 'support+tok1@acme.example, expertq+tok2@acme.example.evil.test', text: 'Yes.' });
    expect((await readInboundMail(raw, REPLY)).token).toBeNull();
  });

  it('reads a forged-looking From as the address it really carries', async () => {
    const raw = await composeReply({ from: '"ada@example.org" <Mallory@Evil.example>', text: 'Trust me.' });
    expect(await readInboundMail(raw, REPLY)).toMatchObject({ kind: 'reply', from: 'mallory@evil.example', text: 'Trust me.' });
  });
});

describe('readInboundMail: DMARC as the receiving server reported it', () => {
  const withResults = async (...results: string[]) => (await readInboundMail(await composeReply({ text: 'Yes.', headers: results.map((value) => ({ key: 'Authentication-Results', value: { prepared: true, value } })) }), REPLY)).dmarcFail;

  it('is a failure when DMARC failed for the From domain', async () => {
    expect(await withResults('mx.acme.example; dkim=none; spf=softfail smtp.mailfrom=example.org; dmarc=fail (p=REJECT sp=REJECT dis=NONE) header.from=example.org')).toBe(true);
    expect(await withResults('mx.acme.example;\r\n dmarc=fail header.from="Example.org"')).toBe(true);
  });

  it('is no failure when DMARC passed, failed for another domain, or the header is absent', async () => {
    expect(await withResults('mx.acme.example; dkim=pass header.i=@example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=REJECT dis=NONE) header.from=example.org')).toBe(false);
    expect(await withResults('mx.acme.example; dmarc=fail header.from=other.example')).toBe(false);
    expect(await withResults('mx.acme.example; dmarc=pass (earlier hop said dmarc=fail) header.from=example.org')).toBe(false);
    expect(await withResults()).toBe(false);
  });

  it('counts a failure in any of several headers', async () => {
    expect(await withResults('mx.acme.example; dmarc=fail header.from=example.org', 'relay.example.net; dmarc=pass header.from=example.org')).toBe(true);
  });
});

describe('readInboundMail: mail that is not an answer', () => {
  const autoReply = (headers: Mail.Headers, subject: string, text: string) => composeReply({ headers, subject, text });
  const kindOf = async (raw: Promise<Buffer | string>, options = {}): Promise<InboundMail> => readInboundMail(await raw, { ...REPLY, ...options });

  it.each([
    ['Auto-Submitted, "Out of Office" subject', { 'Auto-Submitted': 'auto-replied' }, `Out of Office: ${ASK_SUBJECT}`, 'I am away and will answer when I am back.'],
    ['X-Autoreply, vacation in the first lines', { 'X-Autoreply': 'yes' }, `Re: ${ASK_SUBJECT}`, 'Hello,\n\nI am on vacation until 14 December with no access to mail.'],
    ['X-Autorespond, German "Abwesend"', { 'X-Autorespond': 'Abwesenheitsnotiz' }, `Automatische Antwort: Abwesend`, 'Ich bin bis zum 14.12. nicht im Büro.'],
    ['Auto-Submitted with parameters, German body', { 'Auto-Submitted': { prepared: true, value: 'auto-replied; owner-email="ada@example.org"' } }, `AW: ${ASK_SUBJECT}`, 'Ich bin abwesend bis Montag.'],
  ])('an out-of-office auto-reply is away (%s)', async (_name, headers, subject, text) => {
    expect(await kindOf(autoReply(headers, subject, text))).toMatchObject({ kind: 'away', token: 'tok1' });
  });

  it('an auto-reply that is not an out-of-office is automatic', async () => {
    const read = await kindOf(autoReply({ 'Auto-Submitted': 'auto-replied' }, `Re: ${ASK_SUBJECT}`, 'Thanks, your ticket #4411 was received.'));
    expect(read).toMatchObject({ kind: 'automatic', why: 'auto-submitted: auto-replied' });
  });

  it('the away pattern can be changed', async () => {
    const raw = autoReply({ 'Auto-Submitted': 'auto-replied' }, 'Parental leave', 'Back in March.');
    expect((await kindOf(raw)).kind).toBe('automatic');
    expect((await kindOf(raw, { awayPattern: /parental leave/gi })).kind).toBe('away');
    expect((await kindOf(raw, { awayPattern: /parental leave/gi })).kind).toBe('away');
  });

  it.each([
    ['Precedence: bulk', { Precedence: 'bulk' }, 'precedence: bulk'],
    ['Precedence: junk', { Precedence: 'junk' }, 'precedence: junk'],
    ['Auto-Submitted: auto-generated', { 'Auto-Submitted': 'auto-generated' }, 'auto-submitted: auto-generated'],
    ['X-Autoreply on a mail with no away words', { 'X-Autoreply': 'yes' }, 'x-autoreply'],
  ])('%s is automatic, never an answer', async (_name, headers, why) => {
    const read = await kindOf(composeReply({ headers, subject: 'Your weekly digest', text: 'Here is what happened this week.' }));
    expect(read).toMatchObject({ kind: 'automatic', why });
  });

  it('Auto-Submitted: no and Precedence: list are a person’s mail', async () => {
    expect((await kindOf(composeReply({ headers: { 'Auto-Submitted': 'no' }, text: 'Yes.' }))).kind).toBe('reply');
    expect((await kindOf(composeReply({ headers: { Precedence: 'list' }, text: 'Yes.' }))).kind).toBe('reply');
  });

  it('a hard bounce names the ask, the recipient and a permanent status', async () => {
    const raw = await postfixReport({ action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 <ada@example.org>: Recipient address rejected: User unknown' });
    expect(await readInboundMail(raw, REPLY)).toEqual({
      kind: 'bounce',
      messageId: '<20261207100500.4F1A2B3C4D@mx.acme.example>',
      from: 'mailer-daemon@mx.acme.example',
      subject: 'Undelivered Mail Returned to Sender',
      token: null,
      references: [],
      dmarcFail: false,
      originalMessageId: ASK_ID,
      recipient: 'ada@example.org',
      status: '5.1.1',
      permanent: true,
    });
  });

  it('a delay notice is a bounce that is not permanent, read from the returned headers', async () => {
    const raw = await postfixReport({ action: 'delayed', status: '4.4.1', diagnostic: 'connect to mail.example.org[203.0.113.5]:25: Connection timed out' });
    expect(await readInboundMail(raw, REPLY)).toMatchObject({ kind: 'bounce', originalMessageId: ASK_ID, recipient: 'ada@example.org', status: '4.4.1', permanent: false });
  });

  it('an ordinary multipart message is not a bounce', async () => {
    const raw = await composeMail({ from: 'ada@example.org', to: 'expertq+tok1@acme.example', subject: 'Re: x', text: 'Yes.', attachments: [{ filename: 'a.eml', contentType: 'message/rfc822', content: 'Message-ID: <x@y>\r\n\r\nhi' }] });
    expect((await readInboundMail(raw, REPLY)).kind).toBe('reply');
  });
});

describe('mailCommand', () => {
  it.each([
    ['mute', 'mute'],
    ['MUTE', 'mute'],
    [' Skip. ', 'skip'],
    ['*unmute*', 'unmute'],
    ['same!\n', 'same'],
    ['"Skip"', 'skip'],
  ])('%j is the command %s', (text, command) => {
    expect(mailCommand(text)).toBe(command);
  });

  it.each(['skip it, I am busy', 'Please mute this', 'the same as last time', '', 'un mute', 'Rotate them monthly.'])('%j is no command', (text) => {
    expect(mailCommand(text)).toBeNull();
  });

  it('reads a one-word reply above a quote as its command', async () => {
    const text = `Skip.\n\nOn Mon, 7 Dec 2026 at 10:00, expertq <expertq+tok1@acme.example> wrote:\n${quoted(ASK_TEXT)}\n`;
    expect(mailCommand(await replyText(composeReply({ text })))).toBe('skip');
  });
});
