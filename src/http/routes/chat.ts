import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.js';

/**
 * `POST /chat/events`: the chat platform's event endpoint. It lives in its own scope because a
 * platform's signature check needs the raw body. With no chat transport configured it answers 501.
 */
export const chatRoutes: FastifyPluginAsync<{ enabled: boolean }> = async (app, { enabled }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/chat/events', { schema: { hide: true } }, async () => {
    if (!enabled) {
      throw new AppError('not_implemented', 'No chat transport is configured; start expertq with --transport chat and a chat section.');
    }
    throw new AppError('not_implemented', 'Chat events are not handled by this build yet.');
  });
};
