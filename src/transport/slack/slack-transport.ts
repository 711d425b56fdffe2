import type { IncomingHttpHeaders } from 'node:http';
import { App, LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import {
  TransportError, type Inbound, type InboundOutcome, type Presence, type InboundReply, type OutboundMessage, type ReviewOutcome, type SentMessage, type Transport,
} from '../transport.js';
import { ACTION, ANSWER_INPUT, ANSWER_MODAL, answerModal, askBlocks, closedAskBlocks } from './ask-blocks.js';
import { checkSlackSetup } from './check-slack-setup.js';
import { ExpertqReceiver, type ChatHttpAnswer } from './expertq-receiver.js';
import { readMessageEvent, type SlackMessageEvent } from './read-message-event.js';
import { REVIEW_ACTION, REVIEW_INPUT, REVIEW_MODAL, reviewCardBlocks, reviewCardText, reviewModal } from './review-blocks.js';
import { listenForHome } from './slack-home.js';
import { lookUpPresence } from './look-up-presence.js';
import type { AwayStatusRules } from './read-slack-status.js';
import { escapeMrkdwn } from './slack-text.js';
import { toTransportError } from './to-transport-error.js';

export interface SlackTransportOptions {
  botToken: string;
  appToken?: string | undefined;
  signingSecret?: string | undefined;
  /** Web API base URL (`chat.api_url`): Slack's, GovSlack's, or a local fake in tests. */
  apiUrl: string;
  /** `chat.review_channel`: where pending proposals are posted for review. */
  reviewChannel?: string | undefined;
  /** `chat.away_status_emoji` and `chat.away_status_pattern`: which Slack statuses mean away. */
  awayStatus: AwayStatusRules;
  /** The configured experts, checked with Slack after start-up (`users.info`). */
  experts?: ReadonlyArray<{ id: string; name: string }>;
  log: Logger;
  clock: Clock;
}

/**
 * The chat transport on Slack, built on Bolt's App and WebClient. An ask is one DM: the
 * six elements as `text` (the notification, and what screen readers read) and as blocks, then Answer /
 * Skip / Mute. Replies come from the DM (thread or top level), the buttons and the Answer modal, over
 * Socket Mode or HTTP; each is committed by the service before Slack is acknowledged.
 */
export class SlackTransport implements Transport {
  readonly name = 'chat' as const;
  readonly channel = 'slack' as const;
  readonly threaded = true;
  readonly app: App;
  private readonly receiver: ExpertqReceiver;
  private readonly dmChannels = new Map<string, string>();
  private inbound: Inbound | null = null;

  constructor(private readonly options: SlackTransportOptions) {
    const slackLogger = toSlackLogger(options.log.child({ component: 'slack' }));
    // The message outbox retries (with Retry-After): the client itself must not wait or retry.
    const clientOptions: WebClientOptions = {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: 10_000,
      logger: slackLogger,
    };
    this.receiver = new ExpertqReceiver({
      appToken: options.appToken,
      signingSecret: options.signingSecret,
      clientOptions,
      clock: options.clock,
      log: options.log,
      slackLogger,
    });
    this.app = new App({ token: options.botToken, receiver: this.receiver, clientOptions, logger: slackLogger, deferInitialization: true });
    this.app.error(async (error) => {
      throw error;
    });
    this.listen();
  }

  /** Checks the bot token with `auth.test`; rejects with Slack's error code when it is refused. */
  async init(): Promise<void> {
    await this.app.init();
  }

  get socketMode(): boolean {
    return this.receiver.socketMode;
  }

  notReady(): string | null {
    if (!this.inbound) return 'the Slack transport has not started';
    return this.receiver.socketMode && !this.receiver.connected ? 'the Socket Mode connection to Slack is down (reconnecting)' : null;
  }

  async start(inbound: Inbound): Promise<void> {
    this.inbound = inbound;
    await this.receiver.start();
    // Not awaited: a slow or failing Slack check must never hold up or stop start-up (it only warns).
    void checkSlackSetup(this.app.client, { experts: this.options.experts ?? [], reviewChannel: this.options.reviewChannel }, this.options.log);
  }

  async stop(): Promise<void> {
    await this.receiver.stop();
  }

  /** `POST /api/v1/chat/events` in HTTP mode. */
  handleHttp(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<ChatHttpAnswer> {
    return this.receiver.handleHttp(rawBody, headers);
  }

  async send(message: OutboundMessage): Promise<SentMessage | void> {
    try {
      return await this.post(message);
    } catch (error) {
      const review = message.purpose === 'review_card' || message.purpose === 'review_update' || message.purpose === 'review_reminder';
      throw toTransportError(error, { review, channel: review ? (message.cardRef?.channel ?? this.options.reviewChannel ?? null) : (message.thread?.channel ?? this.dmChannels.get(message.expertId) ?? null) });
    }
  }

  /** The expert's do-not-disturb and away status in Slack, asked now. */
  presence(expertId: string): Promise<Presence> {
    return lookUpPresence(this.app.client, expertId, () => this.options.clock.now(), this.options.awayStatus);
  }

  private async post(m: OutboundMessage): Promise<SentMessage | void> {
    const chat = this.app.client.chat;
    if (m.purpose === 'review_card' || m.purpose === 'review_update' || m.purpose === 'review_reminder') return this.postReview(m);
    if (m.purpose === 'ask') {
      const channel = m.thread?.channel ?? (await this.dm(m.expertId));
      const elements = m.elements ?? [m.text];
      // Asked again on the same request: in the first ask's thread, and shown in the DM too.
      const root = m.thread ? (m.thread.thread_ts ?? m.thread.ts) : null;
      const message = { channel, text: escapeMrkdwn(m.text), blocks: askBlocks(elements, m.askId ?? '') };
      const res = await chat.postMessage(root ? { ...message, thread_ts: root, reply_broadcast: true } : message);
      return { chat: { channel: res.channel ?? channel, ts: res.ts!, thread_ts: root } };
    }
    if (m.purpose === 'ask_update' && m.thread) {
      const elements = m.elements ?? [];
      await chat.update({ channel: m.thread.channel, ts: m.thread.ts, text: escapeMrkdwn([...elements, m.text].join('\n')), blocks: closedAskBlocks(elements, m.text) });
      return;
    }
    // Feedback and the acceptance notice go in the ask's thread; notices (and anything whose ask was never posted) top level.
    const channel = m.thread?.channel ?? (await this.dm(m.expertId));
    const threadTs = m.thread ? (m.thread.thread_ts ?? m.thread.ts) : null;
    await chat.postMessage({ channel, text: escapeMrkdwn(m.text), ...(threadTs ? { thread_ts: threadTs } : {}) });
  }

  /** The review channel: a card per proposal (re-sent after a crash: updated, not posted twice), its updates, reminders. */
  private async postReview(m: OutboundMessage): Promise<SentMessage | void> {
    const channel = this.options.reviewChannel;
    if (!channel) throw new TransportError('chat.review_channel is not set', 'no_review_channel', true);
    const chat = this.app.client.chat;
    if (m.purpose === 'review_reminder') {
      await chat.postMessage({ channel, text: escapeMrkdwn(`:bell: ${m.text}`) });
      return;
    }
    const card = m.card!;
    const content = { text: reviewCardText(card), blocks: reviewCardBlocks(card) };
    if (m.cardRef) {
      await chat.update({ channel: m.cardRef.channel, ts: m.cardRef.ts, ...content });
      return;
    }
    const res = await chat.postMessage({ channel, ...content });
    return { reviewCard: { channel: res.channel ?? channel, ts: res.ts! } };
  }

  private async dm(expertId: string): Promise<string> {
    const known = this.dmChannels.get(expertId);
    if (known) return known;
    const res = await this.app.client.conversations.open({ users: expertId });
    const channel = res.channel?.id;
    if (!channel) throw new TransportError('Slack opened no DM channel', 'no_channel', false);
    this.dmChannels.set(expertId, channel);
    return channel;
  }

  private handlers(): Inbound {
    if (!this.inbound) throw new Error('the Slack transport was not started');
    return this.inbound;
  }

  private reply(input: InboundReply): Promise<InboundOutcome> {
    return this.handlers().reply(input);
  }

  /**
   * The review channel's buttons and forms. Accept decides at once; Edit, Reject and Send
   * back open a form first. Every decision goes through the service, which checks `chat.reviewers` and
   * the answering expert; a refusal is shown only to whoever clicked (ephemeral) or in the form.
   */
  private listenForReviews(): void {
    this.app.action({ type: 'block_actions', action_id: REVIEW_ACTION.accept }, async ({ ack, body, action }) => {
      const proposalId = 'value' in action ? action.value : undefined;
      if (proposalId) {
        const outcome = await this.handlers().review({ proposalId, ...slackUser(body.user), action: 'accept', eventId: `action:${body.trigger_id}` });
        await this.tellClicker(body, outcome);
      }
      await ack();
    });
    for (const [actionId, kind] of [[REVIEW_ACTION.edit, 'edit'], [REVIEW_ACTION.reject, 'reject'], [REVIEW_ACTION.return, 'return']] as const) {
      this.app.action({ type: 'block_actions', action_id: actionId }, async ({ ack, body, action, client }) => {
        await ack();
        const proposalId = 'value' in action ? action.value : undefined;
        if (!proposalId) return;
        const initial = kind === 'edit' ? ((await this.handlers().answerOf(proposalId)) ?? '') : '';
        await client.views.open({ trigger_id: body.trigger_id, view: reviewModal(kind, proposalId, initial) }).catch((error: unknown) => {
          this.options.log.warn({ err: error, proposal_id: proposalId }, 'could not open a review form');
        });
      });
    }
    for (const [callbackId, action] of [[REVIEW_MODAL.edit, 'accept'], [REVIEW_MODAL.reject, 'reject'], [REVIEW_MODAL.return, 'return']] as const) {
      this.app.view(callbackId, async ({ ack, body, view }) => {
        const text = view.state.values[REVIEW_INPUT.block]?.[REVIEW_INPUT.action]?.value?.trim() ?? '';
        if (text === '') {
          await ack({ response_action: 'errors', errors: { [REVIEW_INPUT.block]: 'This is required.' } });
          return;
        }
        const field = action === 'accept' ? { answer: text } : action === 'reject' ? { reason: text } : { instructions: text };
        const outcome = await this.handlers().review({ proposalId: view.private_metadata, ...slackUser(body.user), action, ...field, eventId: `view:${view.id}` });
        if (outcome.outcome === 'refused' || outcome.outcome === 'already_decided') {
          await ack({ response_action: 'errors', errors: { [REVIEW_INPUT.block]: outcome.message } });
          return;
        }
        await ack();
        // A vote that leaves the proposal waiting: the voter is told where it stands, in the review channel.
        if (this.options.reviewChannel) await this.tellClicker({ user: body.user, channel: { id: this.options.reviewChannel } }, outcome);
      });
    }
  }

  /** A refusal, or where a vote that did not decide stands ("Approval recorded: 1 of 2…"), shown only to the person who clicked. */
  private async tellClicker(body: { user: { id: string }; channel?: { id: string } }, outcome: ReviewOutcome): Promise<void> {
    if (outcome.outcome === 'decided' || outcome.outcome === 'duplicate' || !body.channel) return;
    await this.app.client.chat.postEphemeral({ channel: body.channel.id, user: body.user.id, text: outcome.message }).catch((error: unknown) => {
      this.options.log.warn({ err: error }, 'could not post an ephemeral answer to a review action');
    });
  }

  private listen(): void {
    this.app.event('message', async ({ event, body }) => {
      const reply = readMessageEvent(event as SlackMessageEvent, (body as { event_id?: string }).event_id);
      if (reply) await this.reply(reply);
    });
    for (const [action, text] of [[ACTION.skip, 'skip'], [ACTION.mute, 'mute']] as const) {
      this.app.action({ type: 'block_actions', action_id: action }, async ({ ack, body, action: button }) => {
        const askId = 'value' in button ? button.value : undefined;
        if (askId) await this.reply({ expertId: body.user.id, text, askId, eventId: `action:${body.trigger_id}` });
        await ack();
      });
    }
    this.app.action({ type: 'block_actions', action_id: ACTION.answer }, async ({ ack, body, action: button, client }) => {
      await ack();
      const askId = 'value' in button ? button.value : undefined;
      if (!askId) return;
      const question = body.message?.blocks?.[2]?.text?.text ?? '';
      // A failure to open the modal is logged, not thrown: a throw would withhold the ack and Slack would
      // send the click again with a trigger that has expired by then.
      await client.views.open({ trigger_id: body.trigger_id, view: answerModal(askId, question) }).catch((error: unknown) => {
        this.options.log.warn({ err: error, ask_id: askId }, 'could not open the Answer modal');
      });
    });
    this.listenForReviews();
    listenForHome(this.app, () => this.handlers(), this.options.log, this.options.clock);
    this.app.view(ANSWER_MODAL, async ({ ack, body, view }) => {
      const text = view.state.values[ANSWER_INPUT.block]?.[ANSWER_INPUT.action]?.value?.trim() ?? '';
      if (text === '') {
        await ack({ response_action: 'errors', errors: { [ANSWER_INPUT.block]: 'Write an answer, or close this and use Skip.' } });
        return;
      }
      await this.reply({ expertId: body.user.id, text, askId: view.private_metadata, eventId: `view:${view.id}` });
      await ack();
    });
  }
}

/** Who a Slack interaction came from: its user id and a display name for `decided_by`. */
function slackUser(user: { id: string; name?: string; username?: string }): { userId: string; userName: string } {
  return { userId: user.id, userName: user.name ?? user.username ?? user.id };
}

/** Bolt and the Slack clients log through pino, as one component. */
function toSlackLogger(log: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const line = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg: unknown[]) => log.debug(line(msg)),
    info: (...msg: unknown[]) => log.info(line(msg)),
    warn: (...msg: unknown[]) => log.warn(line(msg)),
    error: (...msg: unknown[]) => log.error(line(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
