import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addAnswers, getAnswer, libraryStats, listAnswers, retireAnswer, type AnswerViewer } from '../../service/answers.js';
import { answerStatsView, answerView, curatedAnswer, importAnswersBody, listAnswersQuery, retireBody } from '../answer-schemas.js';
import type { Caller } from '../auth.js';
import { idParams } from '../schemas.js';
import { decisionBy } from './proposals.js';
import type { RouteOptions } from './requests.js';

/** A consumer token reads the library as that consumer; every other role sees it all. */
const viewerOf = (caller: Caller): AnswerViewer => ({ consumer: caller.role === 'consumer' ? caller.name : null });

/** The answer library: search, read, add curated entries (admin), retire. */
export const answerRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/answers', {
    schema: {
      operationId: 'listAnswers',
      summary: 'Search the answer library (paginated): ranked by relevance with q, newest first without',
      description: 'A consumer token sees active entries only; with library.share: same_consumer, only those answering its own requests.',
      tags: ['answers'],
      querystring: listAnswersQuery,
      response: { 200: z.object({ items: z.array(answerView), next_cursor: z.string().nullable() }) },
    },
    handler: async (req) => listAnswers(service, viewerOf(req.caller), req.query),
  });

  app.get('/answers/stats', {
    schema: {
      operationId: 'getAnswerStats',
      summary: 'The library in figures: entries by status, and how many asks reuse has spared',
      description: 'Reviewer or admin. Counts every entry, whichever consumer its request came from.',
      tags: ['answers'],
      response: { 200: answerStatsView },
    },
    handler: async () => {
      const { active, stale, retired, reuse_accepted } = await libraryStats(service);
      return { entries: { active, stale, retired }, reuse_accepted };
    },
  });

  app.get('/answers/:id', {
    schema: { operationId: 'getAnswer', summary: 'Read a library entry', tags: ['answers'], params: idParams, response: { 200: answerView } },
    handler: async (req) => getAnswer(service, viewerOf(req.caller), req.params.id),
  });

  app.post('/answers', {
    schema: {
      operationId: 'addAnswer',
      summary: 'Add a curated entry (an answer known before expertq: a FAQ)',
      tags: ['answers'],
      body: curatedAnswer,
      response: { 201: answerView },
    },
    handler: async (req, reply) => {
      const [entry] = await addAnswers(service, [req.body], req.caller.name ?? 'admin', () => '');
      return reply.code(201).send(entry!);
    },
  });

  app.post('/answers/import', {
    schema: {
      operationId: 'importAnswers',
      summary: 'Add many curated entries at once: all of them, or none if any is wrong',
      description: 'Each wrong entry is named in the error details by its position (entries.0 is the first).',
      tags: ['answers'],
      body: importAnswersBody,
      response: { 201: z.object({ imported: z.number().int(), items: z.array(answerView) }) },
    },
    handler: async (req, reply) => {
      const items = await addAnswers(service, req.body.entries, req.caller.name ?? 'admin', (i) => `entries.${i}.`);
      return reply.code(201).send({ imported: items.length, items });
    },
  });

  app.post('/answers/:id/retire', {
    schema: {
      operationId: 'retireAnswer',
      summary: 'Retire a library entry so it is never offered again (no-op when already retired)',
      tags: ['answers'],
      params: idParams,
      body: retireBody,
      response: { 200: answerView },
    },
    handler: async (req) => {
      const { decided_by, reason } = decisionBy(req.caller, req.body);
      return retireAnswer(service, req.params.id, { by: decided_by, reason });
    },
  });
};
