import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Inbound, InboundOutcome } from '../transport.js';
import { readReplyToken } from './mail-tokens.js';
import { readInboundMail } from './read-mail.js';

export interface TakeMailOptions {
  replyDomain: string;
  fromLocalPart: string;
  awayPattern: RegExp;
  secret: string;
  log: Logger;
}

/**
 * What one inbound mail does. Every path names the mail by its Message-ID (else a hash of the whole
 * message), so the same mail taken twice, from the mailbox and the inbound route or by two instances,
 * acts once. In order:
 * - a delivery status notification: a permanent one fails the email channel of the ask it returns;
 * - a reply address token that does not verify for the sender, or a DMARC `fail`: refused;
 * - automatic mail: an out-of-office passes the ask on, anything else is ignored;
 * - a reply: its new text (without the quoted ask and the signature) goes to the ask its token names,
 *   else to the ask whose Message-ID it answers, else by the expert's open asks as in chat.
 */
export async function takeMail(raw: Buffer, inbound: Inbound, options: TakeMailOptions): Promise<InboundOutcome> {
  const mail = await readInboundMail(raw, { replyDomain: options.replyDomain, fromLocalPart: options.fromLocalPart, awayPattern: options.awayPattern });
  const eventId = `email:${mail.messageId ?? createHash('sha256').update(raw).digest('hex')}`;
  const log = options.log.child({ message_id: mail.messageId, from: mail.from });

  if (mail.kind === 'bounce') {
    if (!mail.permanent || !mail.originalMessageId) {
      log.info({ status: mail.status }, 'a delivery notice that is not a permanent failure; nothing to do');
      return { outcome: 'ignored' };
    }
    return inbound.undeliverable({ channel: 'email', thread: { channel: 'email', ts: mail.originalMessageId }, eventId, error: `bounce ${mail.status ?? ''}`.trim() });
  }
  if (!mail.from) return refuse(inbound, log, 'no_sender', eventId);
  const token = mail.token === null ? null : readReplyToken(mail.token);
  if (mail.token !== null && (!token || !token.verify(options.secret, mail.from))) {
    return refuse(inbound, log, 'bad_token', eventId, token?.askId);
  }
  if (mail.dmarcFail) return refuse(inbound, log, 'dmarc_fail', eventId, token?.askId);

  const thread = token || mail.references.length === 0 ? undefined : { channel: 'email', ts: mail.references[0]! };
  const place = { ...(token ? { askId: token.askId } : {}), ...(thread ? { thread } : {}) };
  if (mail.kind === 'away') return inbound.autoReply({ expertId: mail.from, ...place, eventId, source: 'email_auto_reply' });
  if (mail.kind === 'automatic') {
    log.info({ why: mail.why }, 'automatic mail is not an answer; ignored');
    return { outcome: 'ignored' };
  }
  if (mail.text.trim() === '') {
    log.info('a reply with no text of its own (only the quote, or nothing): not an answer');
    return { outcome: 'ignored' };
  }
  return inbound.reply({ expertId: mail.from, text: mail.text, ...place, eventId });
}

function refuse(inbound: Inbound, log: Logger, why: string, eventId: string, askId?: string): Promise<InboundOutcome> {
  log.warn({ why, ask_id: askId }, 'inbound mail refused: it answers no question');
  return inbound.refused({ channel: 'email', why, eventId, ...(askId ? { askId } : {}) });
}
