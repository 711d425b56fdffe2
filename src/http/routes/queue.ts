import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ExpertqService } from '../../service/expertq-service.js';
import type { QueueItem, QueueViewer } from '../../service/review/index.js';
import { queueItem } from '../../wire/schemas.js';
import { LastBody, sendLastBody } from '../last-body.js';
import { checkedJson } from '../serialize-response.js';
import type { RouteOptions } from './requests.js';
import { deciderOf } from './proposals.js';

const queueQuery = z.object({ mine: z.enum(['true', 'false']).optional().describe('`true`: only the proposals still waiting for your vote.') }).strict();

export interface QueueRouteOptions extends RouteOptions {
  /** How often the queue is compared with what the streams last saw, while a stream is open. */
  pollMs?: number;
  /**
   * Comment lines that keep idle streams (and proxies in between) from timing out; at each, a stream
   * opened with a sign-in cookie ends if its session has ended (signed out, revoked or expired).
   */
  heartbeatMs?: number;
}

/** Whether a stream's caller may still read it (a sign-in session still live); null: a bearer token, always. */
type StillAllowed = (() => Promise<boolean>) | null;

/** An open stream: whether its caller may still read it, and whose queue it shows (null: everyone's, as without review rules). */
interface StreamClient {
  stillAllowed: StillAllowed;
  viewer: QueueViewer | null;
  /** The frame it was sent last, so a change that does not concern its caller sends it nothing. */
  last: string;
}

function frame(items: QueueItem[]): string {
  return `event: queue\ndata: ${JSON.stringify(items)}\n\n`;
}

/**
 * Pushes the queue to every open stream when its set of pending proposals changes. Changes made by
 * this process are pushed right after they commit (the service's `commit` signal); a comparison every
 * `pollMs` catches what another process changed in the same database. Both run only while at least
 * one stream is open.
 */
class QueueStreams {
  private readonly clients = new Map<ServerResponse, StreamClient>();
  private poll: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private seen = '';
  private pushScheduled = false;
  private readonly onCommit = () => {
    if (this.pushScheduled) return;
    this.pushScheduled = true;
    // Commits of one event-loop turn are compared once.
    setImmediate(() => {
      this.pushScheduled = false;
      if (this.clients.size > 0) void this.check();
    });
  };

  constructor(
    private readonly service: ExpertqService,
    private readonly pollMs: number,
    private readonly heartbeatMs: number,
  ) {}

  async add(res: ServerResponse, stillAllowed: StillAllowed = null, viewer: QueueViewer | null = null): Promise<void> {
    if (this.clients.size === 0) this.seen = await this.pendingFingerprint();
    const first = frame(await this.service.queue(viewer));
    this.clients.set(res, { stillAllowed, viewer, last: first });
    res.write(first);
    res.once('close', () => this.remove(res));
    this.unsubscribe ??= this.service.changes.subscribe(this.onCommit);
    this.poll ??= setInterval(() => void this.check(), this.pollMs);
    this.heartbeat ??= setInterval(() => {
      this.broadcast(': keep-alive\n\n');
      void this.endEndedSessions();
    }, this.heartbeatMs);
  }

  /** Ends the streams whose sign-in session has ended since they opened: a signed-out browser reads no more. */
  private async endEndedSessions(): Promise<void> {
    for (const [res, { stillAllowed }] of this.clients) {
      if (!stillAllowed) continue;
      // A failed check leaves the stream open: the next heartbeat asks again.
      if (!(await stillAllowed().catch(() => true))) res.end();
    }
  }

  private remove(res: ServerResponse): void {
    this.clients.delete(res);
    if (this.clients.size === 0) this.stopTimers();
  }

  private async check(): Promise<void> {
    try {
      const ids = await this.pendingFingerprint();
      if (ids === this.seen) return;
      this.seen = ids;
      // One read per distinct viewer: without review rules, one for every stream.
      const frames = new Map<string, Promise<string>>();
      for (const [res, client] of this.clients) {
        const { viewer } = client;
        const key = viewer === null ? '' : JSON.stringify([viewer.decider.identities, viewer.decider.admin, viewer.mine]);
        if (!frames.has(key)) frames.set(key, this.service.queue(viewer).then(frame));
        const text = await frames.get(key)!;
        if (viewer !== null && text === client.last) continue;
        client.last = text;
        res.write(text);
      }
    } catch (error) {
      // The database closes before the last stream during shutdown; the next check or close settles it.
      this.service.log.warn({ err: error }, 'queue stream check failed');
    }
  }

  /**
   * What a change is seen by: the pending proposals, and under review rules the votes cast on them too
   * (a vote changes who still sees a proposal with `mine`, and the votes every card shows).
   */
  private async pendingFingerprint(): Promise<string> {
    const pending = await this.service.listPendingProposals();
    if ((this.service.review.rules ?? []).length === 0) return fingerprint(pending.map((p) => p.id));
    const votes = await this.service.store.votes.listMany(pending.map((p) => p.id));
    return fingerprint(pending.map((p) => `${p.id}:${p.answer.length}:${(votes.get(p.id) ?? []).map((v) => v.person).join('+')}`));
  }

  private broadcast(text: string): void {
    for (const res of this.clients.keys()) res.write(text);
  }

  private stopTimers(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.poll) clearInterval(this.poll);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.poll = null;
    this.heartbeat = null;
  }

  /** Ends every stream so the server can close (an open stream would hold `close()` forever). */
  closeAll(): void {
    this.stopTimers();
    for (const res of this.clients.keys()) res.end();
    this.clients.clear();
  }
}

function fingerprint(ids: string[]): string {
  return ids.join(',');
}

/**
 * The reviewer's queue for the web UI: `GET /queue` and its live form,
 * `GET /queue/events` (Server-Sent Events). Both sit behind the bearer token like every API route, so
 * the UI reads the stream with `fetch` and an Authorization header (EventSource cannot send one).
 */
export const queueRoutes: FastifyPluginAsyncZod<QueueRouteOptions> = async (app, options) => {
  const { service } = options;
  const streams = new QueueStreams(service, options.pollMs ?? 1_000, options.heartbeatMs ?? 10_000);
  // Streams end as soon as shutdown starts (the UI reconnects to the next server), not when the last one goes.
  const endAll = () => streams.closeAll();
  service.stoppingSignal.addEventListener('abort', endAll, { once: true });
  app.addHook('preClose', async () => streams.closeAll());
  app.addHook('onClose', async () => service.stoppingSignal.removeEventListener('abort', endAll));

  const queue = z.array(queueItem);
  const queueBody = new LastBody<QueueItem[]>(checkedJson(queue, 'GET', '/queue'));
  app.get('/queue', {
    schema: {
      operationId: 'getQueue',
      summary: 'The review queue: pending proposals with their question, topic, consumer and reason, oldest first',
      description: 'Each caller sees the proposals they may decide: one a review rule covers shows to its reviewers (and admins while `review.admins_decide`). With `mine=true`, only those still waiting for the caller\'s vote.',
      tags: ['proposals'],
      querystring: queueQuery,
      response: { 200: queue },
    },
    // Checked and written once per distinct queue, gzipped for a client that takes it: a long queue is
    // a large body (172 proposals with their questions, 200 KB), and the web UI reads it whole.
    handler: async (req, reply) => sendLastBody(req, reply, queueBody, await service.queue({ decider: deciderOf(req.caller, req.caller.name ?? 'admin'), mine: req.query.mine === 'true' })),
  });

  app.get('/queue/events', {
    schema: {
      operationId: 'streamQueue',
      summary: 'The review queue as Server-Sent Events: an event "queue" (data: the GET /queue array) on connect and on every change',
      description: 'A stream opened with a sign-in cookie ends within 10 seconds of its session ending (signed out, revoked or expired). Under review rules each stream carries its caller\'s queue, as GET /queue does (`mine=true` as there).',
      tags: ['proposals'],
      querystring: queueQuery,
      response: { 200: { description: 'The stream: it stays open until the client or the server closes it', content: { 'text/event-stream': { schema: z.string() } } } },
    },
    handler: async (req, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      req.log.debug('queue stream opened');
      const { sessionId } = req.caller;
      // Under review rules each stream shows its caller's queue, as `GET /queue` does.
      const viewer = (service.review.rules ?? []).length > 0 ? { decider: deciderOf(req.caller, req.caller.name ?? 'admin'), mine: req.query.mine === 'true' } : null;
      await streams.add(reply.raw, sessionId === undefined ? null : () => service.isSessionLive(sessionId), viewer);
    },
  });
};
