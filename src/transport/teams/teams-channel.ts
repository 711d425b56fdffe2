import type { IHttpServerRequest, IHttpServerResponse } from '@microsoft/teams.apps';
import type { Logger } from 'pino';
import type { TeamsSettings } from '../../config/teams-schema.js';
import { TransportError, type Inbound, type OutboundMessage, type SentMessage, type Transport } from '../transport.js';
import { askCard, CARD_TYPE, closedAskCard, reviewCard, reviewCardText, type Card } from './teams-cards.js';
import { createTeamsApp, type TeamsApp } from './teams-app.js';
import { NOT_INSTALLED, toTransportError } from './teams-errors.js';
import { TeamsActivityHandler, type ConversationBook } from './teams-inbound.js';

export interface TeamsChannelOptions {
  settings: TeamsSettings;
  /** `teams.app_password_env`'s value. */
  password: string;
  /** Where each person's personal conversation with the bot is kept (in the database, shared by every instance). */
  conversations: ConversationBook;
  log: Logger;
}

const message = (text: string, card?: Card) => ({
  type: 'message' as const,
  // Plain: nothing a consumer wrote is read as Markdown, and no mention is made without entities.
  textFormat: 'plain' as const,
  text,
  ...(card ? { attachments: [{ contentType: CARD_TYPE, content: card }] } : {}),
});

/**
 * Experts asked in Microsoft Teams. The bot writes to a person only in the personal conversation
 * their installation of the app opened (kept by `ConversationBook`); with none, the ask fails for good
 * (`not_installed`) and moves to their next channel. An ask is an Adaptive Card with an answer box
 * and Answer, Skip and Mute; after any reply it is replaced by its status. Review cards go to
 * `teams.review_channel`. Activities come in through `handle` (our HTTP route), checked by the SDK.
 * The expert is known by their Entra object id here (see AddressedChannel).
 */
export class TeamsChannel implements Transport {
  readonly name = 'teams' as const;
  readonly channel = 'teams' as const;
  readonly threaded = true;
  private readonly teams: TeamsApp;
  private inbound: TeamsActivityHandler | null = null;

  constructor(private readonly options: TeamsChannelOptions) {
    this.teams = createTeamsApp(options.settings, options.password, options.log);
  }

  /** Checks the bot's credentials with the identity provider (start-up refuses to go on without them). */
  async checkCredentials(): Promise<void> {
    await this.teams.tokens.check(this.teams.app.cloud.botScope);
  }

  carries(m: OutboundMessage): boolean {
    if (m.purpose === 'review_mail') return false;
    // A reviewer's notice goes to their personal chat, review channel or not.
    if (m.purpose === 'review_notice') return true;
    return !m.purpose.startsWith('review_') || this.options.settings.review_channel !== undefined;
  }

  async send(m: OutboundMessage): Promise<SentMessage | void> {
    try {
      return await this.post(m);
    } catch (error) {
      throw toTransportError(error);
    }
  }

  private async post(m: OutboundMessage): Promise<SentMessage | void> {
    const review = this.options.settings.review_channel;
    if (m.purpose === 'review_card' || m.purpose === 'review_update' || m.purpose === 'review_reminder') {
      if (!review) throw new TransportError('teams.review_channel is not set', 'no_review_channel', true);
      const channel = this.teams.connector(this.teams.apiUrl).conversations;
      if (m.purpose === 'review_reminder') return void (await channel.activities(review).create(message(m.text)));
      const card = m.card!;
      const activity = message(reviewCardText(card), reviewCard(card));
      if (m.purpose === 'review_update' && m.cardRef) return void (await channel.activities(m.cardRef.channel).update(m.cardRef.ts, activity));
      const posted = await channel.activities(review).create(activity);
      return { reviewCard: { channel: review, ts: posted.id } };
    }
    const place = await this.options.conversations.get(m.expertId);
    if (!place) throw new TransportError(NOT_INSTALLED, 'not_installed', true);
    const activities = this.teams.connector(place.serviceUrl).conversations.activities(place.conversationId);
    if (m.purpose === 'ask' && m.elements && m.askId) {
      const posted = await activities.create(message(m.elements.join('\n\n'), askCard(m.elements, m.askId)));
      return { chat: { channel: 'teams', ts: posted.id, thread_ts: place.conversationId } };
    }
    if (m.purpose === 'ask_update') {
      if (!m.thread || !m.elements) return;
      await activities.update(m.thread.ts, message(m.text, closedAskCard(m.elements, m.text)));
      return;
    }
    await activities.create(message(m.text));
  }

  async start(inbound: Inbound): Promise<void> {
    this.inbound = new TeamsActivityHandler(inbound, this.options.settings, this.options.conversations, this.options.log);
    const handler = this.inbound;
    // One route for every activity: it answers invokes (a card's buttons) with the card that replaces it.
    this.teams.app.on('activity', ((ctx: { activity: unknown }) => handler.handle(ctx.activity as never)) as never);
    await this.teams.app.initialize();
  }

  /**
   * One POST to the messaging endpoint: the SDK checks its Bot Framework token (signature, issuer,
   * audience, expiry, `serviceUrl`), then the activity runs; resolves after whatever it changed is committed.
   */
  handle(request: IHttpServerRequest): Promise<IHttpServerResponse> {
    return this.teams.handle(request);
  }

  async stop(): Promise<void> {}
}
