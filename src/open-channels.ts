import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { ConfigError, type Config, type Secrets } from './config/load-config.js';
import type { Store } from './store/store.js';
import { AddressedChannel } from './transport/addressed-channel.js';
import { ChannelSet } from './transport/channel-set.js';
import type { AddressBook, Transport } from './transport/transport.js';
import type { EmailChannel } from './transport/email/email-channel.js';
import type { EmailEvents } from './http/routes/email.js';
import type { ExpertqService } from './service/expertq-service.js';

/** Which channels `serve` runs: the console alone, Slack alone (`--transport chat`), or every one the file configures. */
export type TransportMode = 'console' | 'chat' | 'channels';

/** `serve`'s default: every configured channel when the file configures one, else the console. */
export function defaultMode(config: Pick<Config, 'chat' | 'email'>): TransportMode {
  return config.chat || config.email ? 'channels' : 'console';
}

/** The secret of reply tokens and signed links: made once, kept in the database, the same on every instance. */
const EMAIL_SECRET_KEY = 'email_link_secret';

export interface OpenedChannels {
  /** Slack, built and checked before the database opens (null when it does not run). */
  slack: (Transport & { readonly channel: 'slack' }) | null;
  /** Loads what the rest needs from the database (email's link secret), then builds them around the service's address book. */
  prepare(store: Store): Promise<(book: AddressBook) => { transport: Transport; email: EmailChannel | null }>;
}

/**
 * The channels of `mode`, in two steps: Slack first (its token is checked with Slack before anything
 * else opens, so nothing half-starts), then email, whose link secret lives in the database. Each is put
 * behind the address book, and all of them in one ChannelSet.
 */
export async function openChannels(mode: TransportMode, config: Config, secrets: Secrets, log: Logger, clock: Clock, publicUrl: () => string): Promise<OpenedChannels> {
  const wantsSlack = mode === 'chat' || (mode === 'channels' && config.chat !== null);
  const wantsEmail = mode === 'channels' && config.email !== null;
  if (mode === 'channels' && !wantsSlack && !wantsEmail) {
    throw new ConfigError(`${config.file ?? 'The configuration'} configures no channel (chat: or email:); start with --transport console, or add one.`);
  }
  // Loaded only when Slack runs: the Slack libraries take most of a console server's start-up.
  const slack = wantsSlack ? await (await import('./transport/slack/create-slack-transport.js')).createSlackTransport(config, secrets, log, clock) : null;
  let smtpUrl: string | undefined;
  if (wantsEmail) {
    smtpUrl = secrets.emailSmtpUrl;
    if (!smtpUrl) throw new ConfigError(`email.smtp_url_env names ${config.email!.smtp_url_env}, which is not set: set it to an smtp:// or smtps:// URL.`);
    if (config.email!.imap_url_env && !secrets.emailImapUrl) throw new ConfigError(`email.imap_url_env names ${config.email!.imap_url_env}, which is not set: set it to an imap:// or imaps:// URL, or remove the setting.`);
  }
  return {
    slack: slack as OpenedChannels['slack'],
    async prepare(store) {
      const emailChannel = smtpUrl ? (await import('./transport/email/email-channel.js')).EmailChannel : null;
      const secret = smtpUrl ? await store.transaction((tx) => tx.serviceState.setIfAbsent(EMAIL_SECRET_KEY, randomBytes(32).toString('base64url'))) : '';
      return (book) => {
        const channels: Transport[] = [];
        if (slack) channels.push(new AddressedChannel(slack as Transport & { readonly channel: 'slack' }, book));
        const email = emailChannel && smtpUrl
          ? new emailChannel({ settings: config.email!, smtpUrl, imapUrl: secrets.emailImapUrl ?? null, orgName: config.org.name, publicUrl, secret, log, clock })
          : null;
        if (email) channels.push(new AddressedChannel(email, book));
        return { transport: new ChannelSet(channels), email };
      };
    },
  };
}

/** What the email routes do: take a raw message, and mute the expert an unsubscribe link names. */
export function emailEvents(email: EmailChannel, inboundToken: string | null, service: ExpertqService): EmailEvents {
  return {
    inboundToken,
    receive: (raw) => email.receive(raw),
    async unsubscribe(link) {
      const address = email.unsubscribeAddress(link);
      const expert = address === null ? undefined : service.experts.at('email', address);
      if (!expert) return null;
      await service.muteExpert(expert.id, `expert:${expert.id}`);
      return { expertName: expert.name };
    },
  };
}
