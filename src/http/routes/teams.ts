import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.js';

/** What the Teams route hands the Teams channel: one request, as the Teams SDK takes it. */
export interface TeamsEvents {
  handle(request: { body: unknown; headers: Record<string, string | string[]> }): Promise<{ status: number; body?: unknown }>;
}

/**
 * `POST /teams/messages`: the bot's messaging endpoint, outside the bearer-token scope (the Bot
 * Framework signs each activity; the Teams SDK checks the signature, issuer, audience, expiry and that
 * the token names the activity's `serviceUrl`). Anything that fails those checks answers 401
 * `unauthorized`; an activity answers once what it changed is committed (a card's button, with the
 * card that replaces it).
 */
export const teamsRoutes: FastifyPluginAsync<{ teams: TeamsEvents | null }> = async (app, { teams }) => {
  app.post('/teams/messages', { schema: { hide: true } }, async (req, reply) => {
    if (!teams) throw new AppError('not_found', 'Teams is not set up here: add a teams: section to the configuration.');
    const body = req.body as { serviceUrl?: unknown } | null;
    // The SDK compares the token's serviceUrl with the activity's only when the activity has one.
    if (!body || typeof body !== 'object' || typeof body.serviceUrl !== 'string' || body.serviceUrl === '') {
      throw new AppError('unauthorized', 'A Teams activity names the serviceUrl its token was issued for.');
    }
    const answer = await teams.handle({ body, headers: req.headers as Record<string, string | string[]> });
    if (answer.status === 401) throw new AppError('unauthorized', 'The activity does not carry a valid Bot Framework token for this bot and tenant.');
    if (answer.status >= 500) throw new Error(`the Teams SDK answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return reply.code(answer.status).send(answer.body ?? '');
  });
};
