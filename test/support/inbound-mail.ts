import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';

/** The reply address settings inbound mail is read with in tests. */
export const REPLY = { replyDomain: 'acme.example', fromLocalPart: 'expertq' } as const;

/** The ask as expertq sent it: its Message-ID is what replies and bounces point back to. */
export const ASK_ID = '<ask-01j8x@acme.example>';
export const ASK_SUBJECT = 'Question from Acme: How do we rotate the signing keys?';
export const ASK_TEXT = ['Acme asks: How do we rotate the signing keys?', 'Asked because: you own the key service.', 'Reply with the single word mute or skip.'].join('\n');

/** A message as a mail client would send it, built by nodemailer's MailComposer (raw MIME). */
export function composeMail(options: Mail.Options): Promise<Buffer> {
  return new MailComposer(options).compile().build();
}

/** The expert's reply to the ask: To the reply address with `token`, threaded under the ask. */
export function composeReply(extra: Mail.Options, token = 'tok1'): Promise<Buffer> {
  return composeMail({
    from: 'Ada Lovelace <ada@example.org>',
    to: `Acme expertq <expertq+${token}@acme.example>`,
    subject: `Re: ${ASK_SUBJECT}`,
    inReplyTo: ASK_ID,
    references: [ASK_ID],
    messageId: '<reply-1@example.org>',
    ...extra,
  });
}

/**
 * A delivery status notification as Postfix writes it (RFC 3464): a human notice, the
 * `message/delivery-status` part, and the returned ask (whole, or only its headers for a delay).
 */
export async function postfixReport(report: { action: 'failed' | 'delayed'; status: string; diagnostic: string }): Promise<string> {
  const ask = (await composeMail({ from: 'Acme expertq <expertq@acme.example>', to: 'ada@example.org', subject: ASK_SUBJECT, messageId: ASK_ID, text: ASK_TEXT })).toString();
  const returned =
    report.action === 'failed'
      ? `Content-Description: Undelivered Message\nContent-Type: message/rfc822\n\n${ask}`
      : `Content-Description: Undelivered Message Headers\nContent-Type: text/rfc822-headers\n\n${ask.slice(0, ask.indexOf('\r\n\r\n'))}\n`;
  const boundary = '4F1A2B3C4D.1796637900/mx.acme.example';
  const notice =
    report.action === 'failed'
      ? "I'm sorry to have to inform you that your message could not\nbe delivered to one or more recipients."
      : '####################################################################\n# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\n####################################################################';
  return `Return-Path: <>
Received: by mx.acme.example (Postfix)
\tid 4F1A2B3C4D; Mon,  7 Dec 2026 10:05:00 +0000 (UTC)
Date: Mon,  7 Dec 2026 10:05:00 +0000 (UTC)
From: MAILER-DAEMON@mx.acme.example (Mail Delivery System)
Subject: ${report.action === 'failed' ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)'}
To: expertq@acme.example
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
\tboundary="${boundary}"
Message-Id: <20261207100500.4F1A2B3C4D@mx.acme.example>

This is a MIME-encapsulated message.

--${boundary}
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.acme.example.

${notice}

<ada@example.org>: ${report.diagnostic}

--${boundary}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.acme.example
X-Postfix-Queue-ID: 4F1A2B3C4D
X-Postfix-Sender: rfc822; expertq@acme.example
Arrival-Date: Mon,  7 Dec 2026 10:04:58 +0000 (UTC)

Final-Recipient: rfc822; Ada@Example.org
Original-Recipient: rfc822;ada@example.org
Action: ${report.action}
Status: ${report.status}
Remote-MTA: dns; mail.example.org
Diagnostic-Code: smtp; ${report.diagnostic}

--${boundary}
${returned}
--${boundary}--
`.replace(/\r?\n/g, '\r\n');
}
