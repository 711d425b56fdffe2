import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { TransportError } from '../transport.js';

/** The fields nodemailer sets on the errors it hands back (its `NodemailerError`). */
interface MailerError {
  message?: string;
  /** Nodemailer's step code (`EENVELOPE`, `ESOCKET`…). */
  code?: string;
  /** The system code under it, e.g. `ECONNREFUSED` under `ESOCKET`. */
  originalCode?: string;
  responseCode?: number;
  rejectedErrors?: MailerError[];
}

/** Nodemailer's codes (and the system codes) of a server that could not be reached or went away. */
const UNREACHABLE = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
const AUTH = new Set(['EAUTH', 'ENOAUTH']);

/**
 * A nodemailer failure as the outbox understands it. An SMTP reply code decides first: 5xx (the
 * server or the expert's mailbox refused the mail) is permanent, `smtp_550`; 4xx is temporary,
 * `smtp_450`. A server that cannot be reached is temporary, `smtp_unreachable`. A login the server
 * refuses is temporary too (`smtp_auth`), although its reply is 5xx: our credentials are wrong, not
 * the expert's address, and passing every ask on would hide that. Anything else: `smtp_error`, retried.
 */
export function toTransportError(error: unknown): TransportError {
  const err = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as MailerError;
  // With one recipient refused, nodemailer's envelope error carries that recipient's reply.
  const reply = err.responseCode ?? err.rejectedErrors?.find((e) => e.responseCode)?.responseCode;
  const message = `mail not sent: ${err.message ?? 'unknown error'}`;
  if (err.code && AUTH.has(err.code)) return new TransportError(message, 'smtp_auth', false);
  if (reply) {
    // 503 (bad sequence of commands) is the session's state, not the mail's fate: nodemailer retries it too.
    return new TransportError(message, `smtp_${reply}`, reply >= 500 && reply < 600 && reply !== 503);
  }
  if ((err.code && UNREACHABLE.has(err.code)) || (err.originalCode && UNREACHABLE.has(err.originalCode))) {
    return new TransportError(message, 'smtp_unreachable', false);
  }
  return new TransportError(message, 'smtp_error', false);
}

/**
 * Sends mail over SMTP with one nodemailer transport (`smtp://` or `smtps://` URL, credentials
 * inside), pooled: a few connections (nodemailer's default, 5) stay open and carry many mails each,
 * instead of a connection, TLS handshake and login per question (`?pool=false` in the URL turns it
 * off). Every failure rejects with a `TransportError` (see `toTransportError`).
 */
export class SmtpSender {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(url: string) {
    this.transport = nodemailer.createTransport({ url, pool: true });
  }

  /**
   * Resolves once the server accepted the mail for its recipient, with the Message-ID it went out
   * with. A recipient the server refused rejects, even if another one was accepted: every mail of this
   * channel has one recipient, the expert.
   */
  async send(mail: Mail.Options): Promise<{ messageId: string }> {
    let info: { messageId: string; rejected?: unknown[]; rejectedErrors?: MailerError[] };
    try {
      info = await this.transport.sendMail(mail);
    } catch (error) {
      throw toTransportError(error);
    }
    const refused = info.rejectedErrors?.[0];
    if (refused || (info.rejected?.length ?? 0) > 0) {
      throw toTransportError(refused ?? { message: `recipient refused: ${String(info.rejected?.[0])}` });
    }
    return { messageId: info.messageId };
  }

  /** Connects and logs in without sending, to tell at start (and for readiness) that mail can go out. */
  async verify(): Promise<void> {
    try {
      await this.transport.verify();
    } catch (error) {
      throw toTransportError(error);
    }
  }

  close(): void {
    this.transport.close();
  }
}
