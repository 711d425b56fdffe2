import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export const BOT_TOKEN = 'xoxb-fake-bot-token';
export const APP_TOKEN = 'xapp-fake-app-token';
export const SIGNING_SECRET = 'fake-signing-secret';
export const BOT_USER = 'UBOT';

/** One Web API call as the fake received it (form fields decoded, JSON fields parsed). */
export interface SlackCall {
  method: string;
  token: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Slack arguments are loosely shaped
  args: Record<string, any>;
  /** What the fake answered. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Slack answers are loosely shaped
  response?: Record<string, any>;
}

/** A workspace member as `users.info` describes one (the fields expertq reads). */
export interface FakeUser {
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
}

/** A channel as `conversations.info` describes it; `is_member` is whether the bot is in it. */
export interface FakeChannel {
  name?: string;
  is_member?: boolean;
}

/** A scripted answer for the next call of a method: an HTTP status, headers and a JSON body. */
export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
}

/**
 * Slack at the network boundary, for tests: the Web API methods expertq calls (over HTTP, as the real
 * `@slack/web-api` client sends them) and a Socket Mode WebSocket that `apps.connections.open` points
 * the real Socket Mode client at. It records every call, can be told to fail the next calls of a
 * method, and can push envelopes (events, button clicks, modal submissions) and wait for their acks.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  /**
   * Workspace members as `users.info` answers them. Any id not listed is an active person; `null`
   * is an id Slack does not know (`user_not_found`).
   */
  readonly users = new Map<string, FakeUser | null>();
  /**
   * Channels as `conversations.info` answers them. Any id not listed is one the bot is in; `null` is
   * one Slack does not show the bot (`channel_not_found`). Posting to a channel with `is_member: false`
   * answers `not_in_channel`, to a `null` one `channel_not_found`, as Slack does.
   */
  readonly channels = new Map<string, FakeChannel | null>();
  /** What `dnd.info` answers per user (seconds since the epoch); anyone not listed has do-not-disturb off. */
  readonly dnd = new Map<string, { dnd_enabled?: boolean; next_dnd_start_ts?: number; next_dnd_end_ts?: number; snooze_enabled?: boolean; snooze_endtime?: number }>();
  /** The status part of what `users.profile.get` answers per user; anyone not listed has no status. */
  readonly statuses = new Map<string, { status_text?: string; status_emoji?: string; status_expiration?: number }>();
  private readonly held = new Map<string, Promise<void>>();
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly scripts = new Map<string, Scripted[]>();
  private readonly acks = new Map<string, (payload: unknown) => void>();
  /** Envelopes sent and not acknowledged yet: what Slack would deliver again. */
  private readonly unacked = new Map<string, { type: string; payload: Record<string, unknown>; attempt: number }>();
  private readonly changes = new EventEmitter();
  private readonly sockets = new Set<WebSocket>();
  private connectedWaiters: Array<() => void> = [];
  private nextTs = 1;
  private nextEnvelope = 1;
  private base = '';

  constructor() {
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.wss = new WebSocketServer({ server: this.http, path: '/socket' });
    this.wss.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
        if (message.envelope_id) {
          this.unacked.delete(message.envelope_id);
          this.acks.get(message.envelope_id)?.(message.payload ?? {});
        }
      });
      socket.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }));
      const waiters = this.connectedWaiters;
      this.connectedWaiters = [];
      for (const w of waiters) w();
      this.changes.emit('connection');
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
    return this;
  }

  /** The Web API base URL to put in `chat.api_url`. */
  get apiUrl(): string {
    return `${this.base}/api/`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  /** The next `times` calls of `method` get this answer instead of the normal one. */
  script(method: string, answer: Scripted, times = 1): void {
    const list = this.scripts.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(answer);
    this.scripts.set(method, list);
  }

  /** Calls of `method` get no answer until the returned function is called (a slow Slack). */
  hold(method: string): () => void {
    let release!: () => void;
    this.held.set(method, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.held.delete(method);
      release();
    };
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** `chat.postMessage` calls to a channel (`D<user>` is the DM with that user). */
  posts(channel?: string): SlackCall[] {
    return this.callsOf('chat.postMessage').filter((c) => channel === undefined || c.args.channel === channel);
  }

  /** Resolves once a Socket Mode client is connected (at once when one already is). */
  connected(): Promise<void> {
    if (this.sockets.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  /** Resolves on the next Socket Mode connection (a client that reconnects after a restart). */
  nextConnection(): Promise<void> {
    return new Promise((resolve) => this.changes.once('connection', () => resolve()));
  }

  /** Resolves once a Web API call matching `predicate` has arrived (at once if one already has). */
  waitForCall(predicate: (call: SlackCall) => boolean): Promise<SlackCall> {
    const found = this.calls.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const check = (call: SlackCall) => {
        if (!predicate(call)) return;
        this.changes.off('call', check);
        resolve(call);
      };
      this.changes.on('call', check);
    });
  }

  /** Sends every unacknowledged envelope again, as Slack does when a client reconnects; resolves with their acks. */
  redeliverUnacked(): Promise<unknown[]> {
    return Promise.all(
      [...this.unacked].map(([envelopeId, e]) =>
        this.envelope(e.type as 'events_api' | 'interactive', e.payload, { envelopeId, retryAttempt: e.attempt + 1 }),
      ),
    );
  }

  /** Pushes an envelope over Socket Mode and resolves with the client's acknowledgement payload. */
  envelope(type: 'events_api' | 'interactive', payload: Record<string, unknown>, options: { envelopeId?: string; retryAttempt?: number } = {}): Promise<unknown> {
    const socket = [...this.sockets][0];
    if (!socket) throw new Error('no Socket Mode client is connected');
    const envelopeId = options.envelopeId ?? `env-${this.nextEnvelope++}`;
    const acked = new Promise<unknown>((resolve) => this.acks.set(envelopeId, resolve));
    this.unacked.set(envelopeId, { type, payload, attempt: options.retryAttempt ?? 0 });
    socket.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: type === 'interactive',
        retry_attempt: options.retryAttempt ?? 0,
        retry_reason: options.retryAttempt ? 'timeout' : '',
      }),
    );
    return acked;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0]!;
    const raw = Buffer.concat(chunks).toString('utf8');
    const args: Record<string, unknown> = {};
    if ((req.headers['content-type'] ?? '').includes('application/json')) Object.assign(args, raw ? JSON.parse(raw) : {});
    else for (const [key, value] of new URLSearchParams(raw)) args[key] = parseField(value);
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || (args.token as string | undefined);
    const call: SlackCall = { method, token, args };
    this.calls.push(call);

    await this.held.get(method);
    const scripted = this.scripts.get(method)?.shift();
    const answer = scripted ?? { body: this.answer(method, token, args) };
    call.response = answer.body;
    this.changes.emit('call', call);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body ?? { ok: false, error: 'fake_error' }));
  }

  private answer(method: string, token: string | undefined, args: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return token === BOT_TOKEN ? { ok: true, user_id: BOT_USER, bot_id: 'BBOT', team_id: 'T1', team: 'Acme' } : { ok: false, error: 'invalid_auth' };
      case 'apps.connections.open':
        return token === APP_TOKEN ? { ok: true, url: `${this.base.replace('http', 'ws')}/socket` } : { ok: false, error: 'invalid_auth' };
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users)}` } };
      case 'users.info': {
        const id = String(args.user);
        const user = this.users.has(id) ? this.users.get(id) : {};
        if (user === null || user === undefined) return { ok: false, error: 'user_not_found' };
        return { ok: true, user: { id, name: id.toLowerCase(), real_name: id, deleted: false, is_bot: false, ...user } };
      }
      case 'conversations.info': {
        const id = String(args.channel);
        const channel = this.channels.has(id) ? this.channels.get(id) : {};
        if (channel === null || channel === undefined) return { ok: false, error: 'channel_not_found' };
        return { ok: true, channel: { id, name: id.toLowerCase(), is_channel: true, is_member: true, ...channel } };
      }
      case 'chat.postMessage': {
        const refused = this.postRefusal(String(args.channel));
        if (refused) return { ok: false, error: refused };
        return { ok: true, channel: args.channel, ts: `1700000000.${String(this.nextTs++).padStart(6, '0')}`, message: { text: args.text } };
      }
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts };
      case 'views.open':
        return { ok: true, view: { id: `V${this.nextTs++}` } };
      case 'dnd.info':
        return { ok: true, dnd_enabled: false, next_dnd_start_ts: 1, next_dnd_end_ts: 1, snooze_enabled: false, ...this.dnd.get(String(args.user)) };
      case 'users.profile.get':
        return { ok: true, profile: { real_name: String(args.user), status_text: '', status_emoji: '', status_expiration: 0, ...this.statuses.get(String(args.user)) } };
      case 'views.publish':
        return { ok: true, view: { id: `VH${this.nextTs++}`, type: 'home' } };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `1700000000.${String(this.nextTs++).padStart(6, '0')}` };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** Why Slack would refuse a post to this channel: the bot is not in it, or cannot see it. */
  private postRefusal(channel: string): string | null {
    if (!this.channels.has(channel)) return null;
    const known = this.channels.get(channel);
    if (!known) return 'channel_not_found';
    return known.is_member === false ? 'not_in_channel' : null;
  }
}

/** Form fields that carry JSON (blocks, view) are parsed; the rest stay strings. */
function parseField(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

let nextEvent = 1;

/** An Events API callback for a message in the DM between the bot and `user`. */
export function dmMessage(user: string, text: string, options: { threadTs?: string; eventId?: string; subtype?: string; botId?: string } = {}): Record<string, unknown> {
  const ts = `1700000100.${String(nextEvent).padStart(6, '0')}`;
  return {
    type: 'event_callback',
    team_id: 'T1',
    api_app_id: 'A1',
    event_id: options.eventId ?? `Ev${nextEvent++}`,
    event_time: 1700000100,
    event: {
      type: 'message',
      channel_type: 'im',
      channel: `D${user}`,
      user,
      text,
      ts,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      ...(options.subtype ? { subtype: options.subtype } : {}),
      ...(options.botId ? { bot_id: options.botId } : {}),
    },
  };
}

/** The part every `block_actions` payload shares: who clicked, in which workspace, and the trigger. */
export function blockActions(user: string, triggerId: string): Record<string, unknown> {
  return { type: 'block_actions', team: { id: 'T1', domain: 'acme' }, user: { id: user, team_id: 'T1' }, api_app_id: 'A1', token: 'legacy', trigger_id: triggerId };
}

/** An interactivity payload for a click on one of an ask's buttons. */
export function buttonClick(user: string, actionId: string, askId: string, triggerId = `trig-${nextEvent++}`): Record<string, unknown> {
  return {
    ...blockActions(user, triggerId),
    container: { type: 'message', channel_id: `D${user}` },
    channel: { id: `D${user}` },
    message: { type: 'message', ts: '1700000000.000001', blocks: [] },
    actions: [{ type: 'button', action_id: actionId, block_id: 'expertq_ask', value: askId, action_ts: '1700000200.000001' }],
  };
}

/** An interactivity payload for the Answer modal being submitted. */
export function modalSubmission(user: string, askId: string, text: string, viewId = `V-sub-${nextEvent++}`): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: 'T1', domain: 'acme' },
    user: { id: user, team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy',
    trigger_id: `trig-${nextEvent++}`,
    view: {
      id: viewId,
      type: 'modal',
      callback_id: 'expertq_answer_modal',
      private_metadata: askId,
      state: { values: { answer: { text: { type: 'plain_text_input', value: text } } } },
      hash: 'h1',
    },
  };
}

/** Headers Slack signs an HTTP event with (`v0` HMAC-SHA256 of `v0:<ts>:<body>`). */
export function slackSignature(body: string, timestampSeconds: number, secret = SIGNING_SECRET): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestampSeconds}:${body}`).digest('hex')}`;
  return { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestampSeconds) };
}
