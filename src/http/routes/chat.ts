import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.js';

/** What `POST /chat/events` hands a chat transport that takes events over HTTP. */
export interface ChatEvents {
  handleHttp(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<{ status: number; body: unknown }>;
}

/**
 * `POST /chat/events`: the chat platform's event endpoint. It lives in its own scope with its own
 * content-type parser because the platform's signature covers the raw body; it is authenticated by
 * that signature, not the bearer token. With no chat transport configured it answers 501.
 */
export const chatRoutes: FastifyPluginAsync<{ chat: ChatEvents | null }> = async (app, { chat }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/chat/events', { schema: { hide: true } }, async (req, reply) => {
    if (!chat) {
      throw new AppError('not_implemented', 'No chat transport is configured; start expertq with --transport chat and a chat section.');
    }
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await chat.handleHttp(raw, req.headers);
    return reply.status(answer.status).send(answer.body);
  });
};
