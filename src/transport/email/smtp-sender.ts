import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import pThrottle from 'p-throttle';
import { NOT_SENT, TransportError } from '../transport.js';

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
 * off). Mails go out at most `maxPerMinute` a minute, evenly spaced (`email.max_per_minute`): a
 * provider's limit is kept, and a burst of questions costs the server a steady trickle instead of
 * every mail's work at once. Every failure rejects with a `TransportError` (see `toTransportError`).
 */
export class SmtpSender {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  private readonly giveUp = new AbortController();
  private readonly paced: (mail: Mail.Options) => Promise<{ messageId: string; rejected?: unknown[]; rejectedErrors?: MailerError[] }>;

  constructor(url: string, maxPerMinute: number) {
    this.transport = nodemailer.createTransport({ url, pool: true });
    const throttle = pThrottle({ limit: 1, interval: Math.max(1, Math.floor(60_000 / maxPerMinute)), signal: this.giveUp.signal });
    this.paced = throttle((mail: Mail.Options) => this.transport.sendMail(mail));
  }

  /**
   * Resolves once the server accepted the mail for its recipient, with the Message-ID it went out
   * with. A recipient the server refused rejects, even if another one was accepted: every mail of this
   * channel has one recipient, the expert. A mail still waiting its turn when `stopSending` is called
   * rejects with `NOT_SENT`.
   */
  async send(mail: Mail.Options): Promise<{ messageId: string }> {
    if (this.giveUp.signal.aborted) throw this.giveUp.signal.reason as TransportError;
    let info: { messageId: string; rejected?: unknown[]; rejectedErrors?: MailerError[] };
    try {
      info = await this.paced(mail);
    } catch (error) {
      if (error instanceof TransportError) throw error;
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

  /** Gives up the mails waiting for their turn (they stay in the outbox); mails under way finish. */
  stopSending(): void {
    if (!this.giveUp.signal.aborted) this.giveUp.abort(new TransportError('mail not sent: expertq is stopping', NOT_SENT, false));
  }

  close(): void {
    this.stopSending();
    this.transport.close();
  }
}
