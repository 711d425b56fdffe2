import { z } from 'zod';
import { searchWords } from '../core/search-words.js';
import { idCursor } from './cursor.js';
import { pageOf } from './page.js';
import { requestRecord } from './schemas.js';

/** Wire shapes of listing, waiting for and cancelling requests (`/requests`); the submit body and the record are in schemas.ts. */

export const listRequestsQuery = z
  .object({
    status: requestRecord.shape.status.optional(),
    consumer_id: z.string().min(1).optional(),
    topic: z.string().trim().min(1).max(200).optional(),
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .refine((q) => searchWords(q).length > 0, 'q must contain a letter or digit: it is searched as words')
      .optional()
      .describe(
        'Text search: requests whose question or drafted question has, for every word of q, a word starting with it (case ignored, accents kept; punctuation separates words).',
      ),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: idCursor('req'),
  })
  .strict();

export const requestPage = pageOf(requestRecord);

export const waitForRequestQuery = z
  .object({
    timeout_s: z.coerce.number().int().min(1).max(50).default(45),
    changed_from: z.iso.datetime().optional().describe('The updated_at of the record you have: any change ends the wait.'),
  })
  .strict();

export const cancelBody = z.object({ cancelled_by: z.string().trim().min(1).max(200).optional() }).strict().nullish();
