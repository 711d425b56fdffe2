import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ErrorDetail } from '../../errors.js';
import type { AnswerViewer, CuratedInput } from '../../service/library/index.js';
import {
  answerPage, answerStatsView, answerView, curatedAnswer, importAnswersBody, importAnswersEnvelope, importAnswersResult, listAnswersQuery, retireBody,
} from '../../wire/answer-schemas.js';
import type { Caller } from '../auth.js';
import { idParams } from '../../wire/schemas.js';
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
      response: { 200: answerPage },
    },
    handler: async (req) => service.listAnswers(viewerOf(req.caller), req.query),
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
      const { active, stale, retired, reuse_accepted } = await service.libraryStats();
      return { entries: { active, stale, retired }, reuse_accepted };
    },
  });

  app.get('/answers/:id', {
    schema: { operationId: 'getAnswer', summary: 'Read a library entry', tags: ['answers'], params: idParams, response: { 200: answerView } },
    handler: async (req) => service.getAnswer(viewerOf(req.caller), req.params.id),
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
      const [entry] = await service.addAnswers([req.body], req.caller.name ?? 'admin', () => '');
      return reply.code(201).send(entry!);
    },
  });

  app.post('/answers/import', {
    schema: {
      operationId: 'importAnswers',
      summary: 'Add many curated entries at once: all of them, or none if any is wrong',
      description:
        'Every wrong entry is named in the error details by its position (entries.0 is the first), whatever is wrong with it: a missing or malformed field, an unknown expert, a verified_at in the future.',
      tags: ['answers'],
      body: importAnswersBody,
      response: { 201: importAnswersResult },
    },
    // An entry of the wrong shape must not hide the others' problems (an unknown expert, say): the
    // handler checks each entry itself when the body as a whole is refused.
    attachValidation: true,
    handler: async (req, reply) => {
      const by = req.caller.name ?? 'admin';
      if (req.validationError) {
        // Some entry is wrong, so this refuses the whole import, naming every wrong entry.
        const { valid, problems } = entriesOf(req.body, req.validationError);
        const positions = valid.map((v) => v.position);
        await service.addAnswers(valid.map((v) => v.input), by, (i) => `entries.${positions[i]}.`, { earlier: problems, positions });
        throw req.validationError;
      }
      const items = await service.addAnswers(req.body.entries, by, (i) => `entries.${i}.`);
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
      return service.retireAnswer(req.params.id, { by: decided_by, reason });
    },
  });
};

/**
 * The entries of an import body that failed validation, one by one: those of the right shape (with
 * their position), and what is wrong with each of the others. A body that is wrong as a whole (no
 * `entries`, too many) is refused as it was.
 */
function entriesOf(body: unknown, refusal: Error): { valid: Array<{ position: number; input: CuratedInput }>; problems: Array<{ position: number; detail: ErrorDetail }> } {
  const envelope = importAnswersEnvelope.safeParse(body);
  if (!envelope.success) throw refusal;
  const valid: Array<{ position: number; input: CuratedInput }> = [];
  const problems: Array<{ position: number; detail: ErrorDetail }> = [];
  envelope.data.entries.forEach((entry, position) => {
    const parsed = curatedAnswer.safeParse(entry);
    if (parsed.success) valid.push({ position, input: parsed.data });
    else for (const issue of parsed.error.issues) problems.push({ position, detail: { path: ['entries', position, ...issue.path].join('.'), message: issue.message } });
  });
  // Every entry has the right shape, yet the body was refused: refused as it was, nothing added.
  if (problems.length === 0) throw refusal;
  return { valid, problems };
}
