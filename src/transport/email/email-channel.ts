import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { mailbox, type EmailSettings } from '../../config/email-schema.js';
import type { Inbound, InboundOutcome, OutboundMessage, SentMessage, Transport } from '../transport.js';
import { askMail, newMessageId, UNSUBSCRIBE_PURPOSE } from './ask-mail.js';
import { readSignedLink } from './mail-tokens.js';
import { ImapInbox } from './imap-inbox.js';
import { takeMail } from './take-mail.js';
import { SmtpSender } from './smtp-sender.js';
import { readReviewToken, REVIEW_LINK_MS, reviewMail, type ReviewLink } from './review-mail.js';

export interface EmailChannelOptions {
  settings: EmailSettings;
  /** `email.smtp_url_env`'s value. */
  smtpUrl: string;
  /** `email.imap_url_env`'s value; unset: replies come only through the inbound route. */
  imapUrl: string | null;
  orgName: string;
  /** Where links in mail point (`server.public_url`, else the address the server listens on). */
  publicUrl: () => string;
  /** Key of reply tokens and signed links, the same on every instance (kept in the database). */
  secret: string;
  log: Logger;
  clock: Clock;
}

/** What the email channel does not carry: it cannot edit a sent mail, and the review channel is Slack's. */
const NOT_BY_EMAIL = new Set(['ask_update', 'review_card', 'review_update', 'review_reminder', 'review_notice']);

/**
 * Experts asked by email. Each ask is one mail with the six elements, a reply address carrying a
 * signed token and its own Message-ID (stored as the ask's place, so replies and bounces find it);
 * what follows (feedback, the acceptance notice) threads under it. Replies come in from an IMAP
 * mailbox or a provider's inbound route (`receive`), both read by `takeMail`. The expert is known by
 * their email address here (see AddressedChannel).
 */
export class EmailChannel implements Transport {
  readonly name = 'email' as const;
  readonly channel = 'email' as const;
  readonly threaded = true;
  private readonly sender: SmtpSender;
  private readonly from: NonNullable<ReturnType<typeof mailbox>>;
  private readonly replyDomain: string;
  private readonly awayPattern: RegExp;
  private inbound: Inbound | null = null;
  private inbox: ImapInbox | null = null;

  constructor(private readonly options: EmailChannelOptions) {
    this.sender = new SmtpSender(options.smtpUrl, options.settings.max_per_minute);
    this.from = mailbox(options.settings.from)!;
    this.replyDomain = (options.settings.reply_domain ?? this.from.domain).toLowerCase();
    this.awayPattern = new RegExp(options.settings.away_pattern, 'i');
  }

  carries(message: OutboundMessage): boolean {
    return !NOT_BY_EMAIL.has(message.purpose);
  }

  async send(message: OutboundMessage): Promise<SentMessage | void> {
    if (message.purpose === 'review_mail') {
      const now = this.options.clock.now();
      await this.sender.send(
        reviewMail({ ...message, card: message.card! }, {
          orgName: this.options.orgName,
          from: this.options.settings.from,
          publicUrl: this.options.publicUrl(),
          secret: this.options.secret,
          messageId: newMessageId(message.id, this.from.domain),
          expiresAt: now + REVIEW_LINK_MS,
        }),
      );
      return;
    }
    const messageId = newMessageId(message.purpose === 'ask' && message.askId ? message.askId : message.id, this.from.domain);
    const mail = askMail(message, {
      orgName: this.options.orgName,
      from: this.options.settings.from,
      to: message.expertId,
      replyDomain: this.replyDomain,
      fromLocalPart: this.from.localPart,
      publicUrl: this.options.publicUrl(),
      secret: this.options.secret,
      messageId,
      // Tokens name the address in lower case: replies come back from it in any case.
      expertId: message.expertId.toLowerCase(),
    });
    await this.sender.send(mail);
    // The ask's place: replies without a token, and bounces, find the ask by this Message-ID.
    if (message.purpose === 'ask') return { chat: { channel: 'email', ts: messageId, thread_ts: null } };
  }

  notReady(): string | null {
    return this.inbox?.notReady() ?? null;
  }

  async start(inbound: Inbound): Promise<void> {
    this.inbound = inbound;
    if (this.options.imapUrl) {
      this.inbox = new ImapInbox({
        url: this.options.imapUrl,
        log: this.options.log,
        pollMs: this.options.settings.imap_poll,
        onMessage: async (raw) => {
          await this.receive(raw);
        },
      });
      await this.inbox.start();
    }
  }

  stopSending(): void {
    this.sender.stopSending();
  }

  async stop(): Promise<void> {
    await this.inbox?.stop();
    this.sender.close();
  }

  /** The address a one-click unsubscribe link of ours names, or null when it is not one (changed, or made with another key). */
  unsubscribeAddress(link: string): string | null {
    return readSignedLink(this.options.secret, UNSUBSCRIBE_PURPOSE, link, this.options.clock.now())?.payload ?? null;
  }

  /** The decision a mailed review link names, or null when it is not one of ours, was changed or has expired. */
  reviewLink(value: string): ReviewLink | null {
    return readReviewToken(this.options.secret, value, this.options.clock.now());
  }

  /** One inbound message (raw MIME), from the mailbox or the inbound route; resolves once it is committed. */
  async receive(raw: Buffer): Promise<InboundOutcome> {
    if (!this.inbound) throw new Error('the email channel was not started');
    return takeMail(raw, this.inbound, {
      replyDomain: this.replyDomain,
      fromLocalPart: this.from.localPart,
      awayPattern: this.awayPattern,
      secret: this.options.secret,
      log: this.options.log,
    });
  }
}
