import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** Wire shapes of the insights (`GET /insights`): what the service did, per group and in total. */

export const INSIGHT_GROUPS = ['topic', 'expert', 'consumer', 'day', 'week'] as const;

export const insightsQuery = z
  .object({
    from: isoTime.optional().describe('Start of the window, inclusive (default: 30 days before `to`). Counted by the hour: an hour counts when it begins at or after `from` rounded down to the hour, and before `to`.'),
    to: isoTime.optional().describe('End of the window, exclusive (default: now). At most three years after `from`.'),
    group_by: z.enum(INSIGHT_GROUPS).optional().describe('Figures per topic, expert, consumer, day or week (Monday first; days and weeks in org.timezone) besides the total.'),
    topic: z.string().trim().min(1).max(200).optional(),
    expert: z.string().trim().min(1).max(200).optional().describe('Only requests this expert was asked on, and their own asks, replies and proposals.'),
    consumer: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

const time = z
  .object({
    count: z.number().int(),
    p50_s: z.number().nullable().describe('Median in seconds, from fixed buckets: within 10 % of the true value (null when nothing was counted).'),
    p90_s: z.number().nullable(),
  })
  .describe('A time in seconds, read from fixed buckets.');

const share = z.number().nullable().describe('A fraction between 0 and 1; null when there is nothing to divide by.');

export const insightFigures = z.object({
  requests: z
    .object({
      submitted: z.number().int(),
      accepted: z.number().int(),
      rejected: z.number().int(),
      failed: z.number().int(),
      failed_by_reason: z.object({
        timeout: z.number().int(),
        no_expert_found: z.number().int(),
        expert_declined: z.number().int(),
        rate_limited: z.number().int(),
        cancelled: z.number().int(),
        error: z.number().int(),
      }),
      open: z.number().int(),
    })
    .describe('Requests submitted in the window, by their outcome now.'),
  answered_from_library: z.number().int().describe('Library answers accepted: each is an ask no expert had to answer.'),
  asks_spared: z.number().int().describe('Asks the library spared: the same as answered_from_library.'),
  time_to_first_answer: time.describe('Submission to the first expert reply that made a proposal (library answers left out).'),
  proposal_to_decision: time.describe('Proposal created to accepted or rejected (a send-back is not a decision).'),
  asked_requests: z.number().int().describe('Requests asked of an expert at least once.'),
  escalated_requests: z.number().int().describe('Of those, requests that were escalated (on no reply, a skip, a mute, an away expert).'),
  share_escalated: share,
  proposals: z.number().int(),
  sent_back: z.number().int(),
  share_sent_back: share,
  asks: z.number().int().describe('Asks sent, re-asks after a send-back included.'),
  share_of_asks: share.describe("This group's asks as a share of all asks in the window (under the same filters)."),
  answers: z.number().int().describe('Expert replies that made a proposal.'),
  skips: z.number().int(),
  mutes: z.number().int(),
  cap_holds: z.number().int().describe('Times a request was held because every candidate was at a cap (not counted per expert).'),
});

export const insightGroup = insightFigures.extend({ key: z.string().describe('The topic, expert id, consumer id, or the first day of the day or week (YYYY-MM-DD).') });

export const insightsView = z.object({
  from: isoTime,
  to: isoTime,
  group_by: z.enum(INSIGHT_GROUPS).nullable(),
  time_zone: z.string(),
  total: insightFigures,
  groups: z.array(insightGroup),
});

export type InsightsQuery = z.infer<typeof insightsQuery>;
export type InsightFigures = z.infer<typeof insightFigures>;
export type InsightsView = z.infer<typeof insightsView>;
