import { z } from 'zod';
import type { AnswerStatus } from '../domain/answers.js';
import { isIdCursor, isPositionCursor, NOT_A_CURSOR } from './cursor.js';
import { pageOf } from './page.js';
import { decidedBy } from './schemas.js';

/** Wire shapes of the answer library. */

export const answerStatus = z.enum(['active', 'stale', 'retired'] as const satisfies readonly AnswerStatus[]);

export const answerView = z.object({
  id: z.string(),
  topic: z.string(),
  kind: z.string(),
  question: z.string().describe('The question as it was asked.'),
  answer: z.string().describe('The answer as it was delivered, reviewer\'s edits included.'),
  structured: z.unknown(),
  expert_id: z.string(),
  expert_name: z.string(),
  request_id: z.string().nullable().describe('The request it answered; null for a curated entry.'),
  proposal_id: z.string().nullable(),
  accepted_at: z.string(),
  accepted_by: z.string(),
  verified_at: z.string().describe('When the answer was last known right; older than library.verify_after, the entry is stale.'),
  status: answerStatus,
  reuse_count: z.number().int(),
  retired: z.object({ reason: z.string(), by: z.string(), at: z.string() }).nullable(),
  score: z.number().optional().describe('With q only: relevance, higher is better. Compare scores within one search, not across searches or servers.'),
});

export const answerPage = pageOf(answerView);

export const listAnswersQuery = z
  .object({
    q: z.string().trim().min(1).max(1000).optional().describe('Words to search for in questions and answers; entries with more of them, and rarer ones, come first.'),
    topic: z.string().trim().min(1).max(200).optional(),
    status: answerStatus.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().max(200).optional().describe('next_cursor from the previous page (of the same search); leave it out for the first page.'),
  })
  .strict()
  // A ranked search (with q) pages by position, a plain list by entry id: a cursor of the other kind,
  // or one never handed out, is refused rather than answered with an empty or a first page.
  .superRefine((query, ctx) => {
    if (query.cursor === undefined) return;
    const fits = query.q === undefined ? isIdCursor('ans', query.cursor) : isPositionCursor(query.cursor);
    if (!fits) ctx.addIssue({ code: 'custom', path: ['cursor'], message: NOT_A_CURSOR });
  });

export const curatedAnswer = z
  .object({
    topic: z.string().trim().min(1).max(200),
    kind: z.string().trim().min(1).max(100).optional(),
    question: z.string().trim().min(1).max(4000),
    answer: z.string().trim().min(1).max(4000),
    expert_id: z.string().trim().min(1).max(200).describe('The expert the answer is from: an id in the registry.'),
    verified_at: z.iso.datetime().optional().describe('When the answer was last known right (default: now); not in the future.'),
  })
  .strict();

/** The most entries one import may add. */
const MAX_IMPORT = 10_000;

export const importAnswersBody = z.object({ entries: z.array(curatedAnswer).min(1).max(MAX_IMPORT) }).strict();

/** An import body whose entries are not checked yet: to check them one by one when the body as a whole is refused. */
export const importAnswersEnvelope = z.object({ entries: z.array(z.unknown()).min(1).max(MAX_IMPORT) }).strict();

export const importAnswersResult = z.object({ imported: z.number().int(), items: z.array(answerView) });

export const retireBody = z
  .object({ decided_by: decidedBy, reason: z.string().trim().min(1).max(2000).describe('Why the entry must not be offered again.') })
  .strict();

export const answerStatsView = z.object({
  entries: z.object({ active: z.number().int(), stale: z.number().int(), retired: z.number().int() }).describe('Entries by status (stale: active but not verified within library.verify_after).'),
  reuse_accepted: z.number().int().describe('Reused answers accepted so far: each one is an ask no expert had to answer.'),
});
