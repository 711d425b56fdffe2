import type { IncomingHttpHeaders } from 'node:http';
import type { App, Receiver } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger as SlackLogger } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import { verifySlackRequest } from './verify-slack-request.js';

export interface ExpertqReceiverOptions {
  /** Socket Mode (`xapp-…`): events arrive over a WebSocket the receiver opens; no public URL. */
  appToken?: string | undefined;
  /** HTTP mode: events are POSTed to `/api/v1/chat/events`, signed with this secret. */
  signingSecret?: string | undefined;
  clientOptions: WebClientOptions;
  clock: Clock;
  log: Logger;
  slackLogger: SlackLogger;
}

/** What the HTTP route answers Slack with. */
export interface ChatHttpAnswer {
  status: number;
  body: unknown;
}

/**
 * A Bolt `Receiver` that acknowledges Slack only after the listeners are done, so a reply is committed
 * before Slack hears that it arrived. Bolt's own Socket Mode receiver acknowledges first and
 * has no option not to; its HTTP receiver can wait (`processBeforeResponse`) but its verifier accepts
 * timestamps in the future. Both modes go through `dispatch`: a listener that throws means no
 * acknowledgement, and Slack sends the event again (a retry is processed once: the event id is recorded
 * with the reply).
 */
export class ExpertqReceiver implements Receiver {
  private app: App | null = null;
  private readonly socket: SocketModeClient | null;
  /** Socket Mode: whether the WebSocket to Slack is up (Slack recycles it now and then; it reconnects). */
  connected = false;

  constructor(private readonly options: ExpertqReceiverOptions) {
    this.socket = options.appToken
      ? new SocketModeClient({ appToken: options.appToken, clientOptions: options.clientOptions, logger: options.slackLogger })
      : null;
    this.socket?.on('slack_event', (args: SocketEvent) => void this.onSocketEvent(args));
    this.socket?.on('connected', () => (this.connected = true));
    for (const state of ['connecting', 'reconnecting', 'disconnecting', 'disconnected']) this.socket?.on(state, () => (this.connected = false));
  }

  get socketMode(): boolean {
    return this.socket !== null;
  }

  get httpMode(): boolean {
    return this.options.signingSecret !== undefined;
  }

  init(app: App): void {
    this.app = app;
  }

  /** Opens the Socket Mode connection (rejects when Slack refuses the app token). */
  async start(): Promise<void> {
    await this.socket?.start();
  }

  async stop(): Promise<void> {
    await this.socket?.disconnect();
  }

  /** `POST /api/v1/chat/events`: Events API callbacks (JSON) and interactivity payloads (form, `payload=`). */
  async handleHttp(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<ChatHttpAnswer> {
    const secret = this.options.signingSecret;
    if (secret === undefined) {
      throw new AppError('not_implemented', 'Chat events arrive over Socket Mode here; this server has no signing secret for HTTP events.');
    }
    const why = verifySlackRequest(
      secret,
      { signature: header(headers, 'x-slack-signature'), timestamp: header(headers, 'x-slack-request-timestamp') },
      rawBody,
      this.options.clock.now(),
    );
    if (why) throw new AppError('unauthorized', `Not a valid Slack request: ${why}.`);
    const body = parseBody(rawBody, header(headers, 'content-type') ?? '');
    if (body.type === 'url_verification') return { status: 200, body: { challenge: body.challenge } };
    if (body.ssl_check !== undefined) return { status: 200, body: '' };
    const retryNum = Number(header(headers, 'x-slack-retry-num') ?? NaN);
    const response = await this.dispatch(body, Number.isInteger(retryNum) ? retryNum : undefined, header(headers, 'x-slack-retry-reason'));
    return { status: 200, body: response ?? '' };
  }

  private async onSocketEvent(args: SocketEvent): Promise<void> {
    try {
      const response = await this.dispatch(args.body, args.retry_num, args.retry_reason);
      await args.ack(response);
    } catch (error) {
      // Not acknowledged: Slack delivers the envelope again.
      this.options.log.error({ err: error, envelope_id: args.envelope_id, type: args.type }, 'chat event failed; not acknowledged, Slack will redeliver');
    }
  }

  /** Runs Bolt's middleware and listeners; resolves with what a listener acknowledged with. */
  private async dispatch(body: Record<string, unknown>, retryNum?: number, retryReason?: string): Promise<unknown> {
    if (!this.app) throw new Error('the receiver was not initialised by a Bolt App');
    let response: unknown;
    await this.app.processEvent({
      body,
      ack: async (answer?: unknown) => {
        response = answer;
      },
      ...(retryNum !== undefined ? { retryNum } : {}),
      ...(retryReason !== undefined ? { retryReason } : {}),
    });
    return response;
  }
}

interface SocketEvent {
  ack: (response?: unknown) => Promise<void>;
  envelope_id: string;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseBody(raw: Buffer, contentType: string): Record<string, unknown> {
  try {
    if (contentType.startsWith('application/x-www-form-urlencoded')) {
      const payload = new URLSearchParams(raw.toString('utf8')).get('payload');
      if (payload === null) throw new Error('no payload field');
      return JSON.parse(payload) as Record<string, unknown>;
    }
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new AppError('bad_request', `The chat event body could not be read: ${(error as Error).message}.`);
  }
}
