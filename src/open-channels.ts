import { createHash, randomBytes } from 'node:crypto';
import { EMAIL_REVIEW, reviewCardOf } from './service/review/index.js';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { ConfigError, type Config, type Secrets } from './config/load-config.js';
import type { Store } from './store/store.js';
import { AddressedChannel } from './transport/addressed-channel.js';
import { ChannelSet } from './transport/channel-set.js';
import { votesLines } from './transport/review-card-text.js';
import type { AddressBook, Transport } from './transport/transport.js';
import type { EmailChannel } from './transport/email/email-channel.js';
import type { TeamsChannel } from './transport/teams/teams-channel.js';
import type { ConversationBook, TeamsConversation } from './transport/teams/teams-inbound.js';
import type { EmailEvents } from './http/routes/email.js';
import type { ExpertqService } from './service/expertq-service.js';

/** Which channels `serve` runs: the console alone, Slack alone (`--transport chat`), or every one the file configures. */
export type TransportMode = 'console' | 'chat' | 'channels';

/** `serve`'s default: every configured channel when the file configures one, else the console. */
export function defaultMode(config: Pick<Config, 'chat' | 'email' | 'teams'>): TransportMode {
  return config.chat || config.email || config.teams ? 'channels' : 'console';
}

/** The secret of reply tokens and signed links: made once, kept in the database, the same on every instance. */
const EMAIL_SECRET_KEY = 'email_link_secret';

export interface OpenedChannels {
  /** Slack, built and checked before the database opens (null when it does not run). */
  slack: (Transport & { readonly channel: 'slack' }) | null;
  /** Loads what the rest needs from the database (email's link secret), then builds them around the service's address book. */
  prepare(store: Store): Promise<(book: AddressBook) => { transport: Transport; email: EmailChannel | null; teams: TeamsChannel | null }>;
}

/**
 * The channels of `mode`, in two steps: Slack first (its token is checked with Slack before anything
 * else opens, so nothing half-starts), then email, whose link secret lives in the database. Each is put
 * behind the address book, and all of them in one ChannelSet.
 */
export async function openChannels(mode: TransportMode, config: Config, secrets: Secrets, log: Logger, clock: Clock, publicUrl: () => string): Promise<OpenedChannels> {
  const wantsSlack = mode === 'chat' || (mode === 'channels' && config.chat !== null);
  const wantsEmail = mode === 'channels' && config.email !== null;
  const wantsTeams = mode === 'channels' && config.teams !== null;
  if (mode === 'channels' && !wantsSlack && !wantsEmail && !wantsTeams) {
    throw new ConfigError(`${config.file ?? 'The configuration'} configures no channel (chat:, email: or teams:); start with --transport console, or add one.`);
  }
  // Loaded only when Slack runs: the Slack libraries take most of a console server's start-up.
  const slack = wantsSlack ? await (await import('./transport/slack/create-slack-transport.js')).createSlackTransport(config, secrets, log, clock) : null;
  let smtpUrl: string | undefined;
  if (wantsEmail) {
    smtpUrl = secrets.emailSmtpUrl;
    if (!smtpUrl) throw new ConfigError(`email.smtp_url_env names ${config.email!.smtp_url_env}, which is not set: set it to an smtp:// or smtps:// URL.`);
    if (config.email!.imap_url_env && !secrets.emailImapUrl) throw new ConfigError(`email.imap_url_env names ${config.email!.imap_url_env}, which is not set: set it to an imap:// or imaps:// URL, or remove the setting.`);
  }
  // Teams' credentials are checked with the identity provider before the database opens, as Slack's are.
  const conversations = new StoredConversations();
  const teams = wantsTeams ? await openTeams(config, secrets, log, conversations) : null;
  return {
    slack: slack as OpenedChannels['slack'],
    async prepare(store) {
      conversations.store = store;
      const emailChannel = smtpUrl ? (await import('./transport/email/email-channel.js')).EmailChannel : null;
      const secret = smtpUrl ? await store.transaction((tx) => tx.serviceState.setIfAbsent(EMAIL_SECRET_KEY, randomBytes(32).toString('base64url'))) : '';
      return (book) => {
        const channels: Transport[] = [];
        if (slack) channels.push(new AddressedChannel(slack as Transport & { readonly channel: 'slack' }, book));
        const email = emailChannel && smtpUrl
          ? new emailChannel({ settings: config.email!, smtpUrl, imapUrl: secrets.emailImapUrl ?? null, orgName: config.org.name, publicUrl, secret, log, clock })
          : null;
        if (teams) channels.push(new AddressedChannel(teams, book));
        if (email) channels.push(new AddressedChannel(email, book));
        return { transport: new ChannelSet(channels), email, teams };
      };
    },
  };
}

/** Each person's personal conversation with the Teams bot, kept in the service state (one row per person, any instance). */
class StoredConversations implements ConversationBook {
  store: Store | null = null;

  async get(objectId: string): Promise<TeamsConversation | null> {
    const value = await this.store!.serviceState.get(conversationKey(objectId));
    return value ? (JSON.parse(value) as TeamsConversation) : null;
  }

  /** Writes only a change: every message from a person confirms their conversation, nearly always as it was. */
  async set(objectId: string, conversation: TeamsConversation | null): Promise<void> {
    const key = conversationKey(objectId);
    const value = conversation ? JSON.stringify(conversation) : '';
    if (((await this.store!.serviceState.get(key)) ?? '') === value) return;
    await this.store!.transaction((tx) => tx.serviceState.set(key, value));
  }
}

const conversationKey = (objectId: string) => `teams.conversation.${objectId.toLowerCase()}`;

/** The Teams channel, its credentials checked: a missing variable or a refused token stops start-up with one line. */
async function openTeams(config: Config, secrets: Secrets, log: Logger, conversations: ConversationBook): Promise<TeamsChannel> {
  const settings = config.teams!;
  const password = secrets.teamsAppPassword;
  if (!password) throw new ConfigError(`teams.app_password_env names ${settings.app_password_env}, which is not set: set it to the app registration's client secret.`);
  const { TeamsChannel } = await import('./transport/teams/teams-channel.js');
  const teams = new TeamsChannel({ settings, password, conversations, log });
  try {
    await teams.checkCredentials();
  } catch (error) {
    throw new ConfigError(`Teams: the identity provider refused the bot's credentials (teams.app_id ${settings.app_id}, teams.tenant_id ${settings.tenant_id}): ${error instanceof Error ? error.message : String(error)}.`);
  }
  return teams;
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
    async reviewPage(value) {
      const link = email.reviewLink(value);
      if (!link) return { status: 400, why: 'It is not a review link of ours, it was changed on the way, or it has expired (links work for 24 hours).' };
      if (await service.store.chat.eventSeen(reviewEvent(value))) return { status: 409, why: 'It was used already.' };
      const proposal = await service.store.proposals.get(link.proposalId);
      const request = proposal && (await service.store.requests.get(proposal.request_id));
      if (!proposal || !request) return { status: 404, why: 'The answer it is about no longer exists.' };
      if (proposal.status !== 'pending') return { status: 409, why: `The answer was ${proposal.status} already, by ${proposal.decision?.decided_by ?? 'someone'}.` };
      const card = await reviewCardOf(service.store, proposal.id, service.clock.now(), service);
      return { action: link.action, question: request.question, expertName: proposal.provenance.expert_name, answer: proposal.answer, votes: card ? votesLines(card) : [] };
    },
    async review(value, fields) {
      const link = email.reviewLink(value);
      if (!link) return { status: 400, title: 'This link does not work', message: 'It is not a review link of ours, it was changed on the way, or it has expired. Nothing was decided.' };
      if (link.action === 'reject' && !fields.reason) return { status: 400, title: 'A reason is needed', message: 'Go back and say why the answer is rejected. Nothing was decided.' };
      if (link.action === 'return' && !fields.instructions) return { status: 400, title: 'Instructions are needed', message: 'Go back and say what the expert should change. Nothing was decided.' };
      const outcome = await service.reviewFromChat(
        { proposalId: link.proposalId, userId: link.reviewer, userName: link.reviewer, action: link.action, reason: fields.reason, instructions: fields.instructions, eventId: reviewEvent(value) },
        EMAIL_REVIEW,
      );
      // Under a review rule the page says where the vote stands ("Approval recorded: 1 of 2…") or what it decided.
      if (outcome.outcome === 'recorded') return { status: 200, title: 'Vote recorded', message: outcome.message };
      if (outcome.outcome === 'decided' && outcome.rule !== undefined && link.action !== 'return') return { status: 200, title: 'Done', message: outcome.message };
      if (outcome.outcome === 'decided') return { status: 200, title: 'Done', message: link.action === 'accept' ? 'The answer is accepted and on its way to the consumer.' : link.action === 'reject' ? 'The answer is rejected.' : 'The answer went back to the expert with your instructions.' };
      if (outcome.outcome === 'duplicate') return { status: 409, title: 'This link was used already', message: 'Nothing more was decided.' };
      return { status: outcome.outcome === 'already_decided' ? 409 : 403, title: 'Nothing was decided', message: outcome.message };
    },
  };
}

/** A review link is used once: its use is recorded like a chat event, under a hash of the link. */
function reviewEvent(value: string): string {
  return `email-review:${createHash('sha256').update(value).digest('hex')}`;
}
