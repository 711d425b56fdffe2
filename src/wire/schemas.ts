import { z } from 'zod';
import { isoTime } from './iso-time.js';
import { durationSchema, quietHoursSchema } from '../config/config-schema.js';
import type { RequestStatus } from '../domain/records.js';

/** One zod schema per wire shape: it validates the route, types the handler and writes the OpenAPI. */

export const errorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z
        .array(
          z.object({
            path: z.string(),
            message: z.string(),
            limit: z.number().int().optional().describe('rate_limited: the daily quota that was reached.'),
            resets_at: z.string().optional().describe('rate_limited: when the quota starts again (the next midnight in the organisation\'s time zone).'),
          }),
        )
        .optional(),
    }),
  })
  .meta({ id: 'Error' });

const CONTEXT_LIMIT = 16 * 1024;

export const routingPolicyInput = z
  .object({
    escalation_after: durationSchema.optional(),
    give_up_after: durationSchema.optional(),
    quiet_hours: quietHoursSchema.optional(),
    max_open_asks_per_expert: z.number().int().min(1).optional(),
    max_asks_per_expert_per_day: z.number().int().min(1).optional(),
    reuse: z
      .enum(['offer', 'off'])
      .optional()
      .describe('offer (the default set by `library.reuse`): a close enough accepted answer from the library is proposed instead of asking an expert; off: always ask.'),
  })
  .strict();

export const submitRequestBody = z
  .object({
    consumer_id: z.string().trim().min(1).max(200),
    topic: z.string().trim().min(1).max(200),
    question: z.string().trim().min(1).max(4000),
    kind: z.string().trim().min(1).max(100).optional(),
    context: z
      .looseObject({ asked_because: z.string().trim().min(1).max(500) })
      .refine((c) => JSON.stringify(c).length <= CONTEXT_LIMIT, `must be at most ${CONTEXT_LIMIT} bytes serialized`),
    target_experts: z.array(z.string().min(1)).max(50).optional(),
    routing_policy: routingPolicyInput.optional(),
    dedup_key: z.string().min(1).max(200).optional(),
  })
  .strict()
  .meta({ id: 'SubmitRequest' });

/** Why a request failed or a submit did not queue: an error code and words. */
export const reason = z.object({ code: z.string(), message: z.string() });

export const proposal = z
  .object({
    id: z.string(),
    request_id: z.string(),
    status: z.enum(['pending', 'accepted', 'rejected']),
    answer: z.string(),
    structured: z.unknown(),
    confidence: z.number().nullable(),
    provenance: z.object({
      expert_id: z.string(),
      expert_name: z.string(),
      source: z.string(),
      transport: z.string(),
      answered_at: isoTime,
      ask_id: z.string().nullable().describe('The ask the expert answered; null when the answer was reused from the library.'),
      escalated: z.boolean(),
      reused_from: z.string().optional().describe('Only when reused: the library entry (`ans_…`) this answer comes from; nobody was asked.'),
      original_request_id: z.string().nullable().optional().describe('Only when reused: the request the entry first answered (null for an entry added by hand).'),
      original_question: z.string().optional().describe('Only when reused: the question the entry first answered, to compare with this one.'),
      verified_at: isoTime.optional().describe('Only when reused: when the entry was last confirmed true.'),
      refreshes: z
        .string()
        .optional()
        .describe('Only when the expert was shown a library answer due for checking and replied `same`: that entry (`ans_…`); accepting refreshes it instead of adding an entry.'),
      edited_by: z.string().optional().describe('Who edited the answer before accepting it.'),
      llm: z
        .object({ model: z.string(), drafted: z.boolean(), structured: z.boolean() })
        .optional()
        .describe('Only with an LLM configured: the model, and whether the question was drafted and the answer structured by it.'),
    }),
    decision: z
      .object({ decided_by: z.string(), note: z.string().nullable(), reason: z.string().nullable(), decided_at: isoTime })
      .nullable(),
    original_answer: z.string().nullable().describe('The expert\'s own text when a reviewer edited `answer` before accepting; else null.'),
    created_at: isoTime,
    votes: z
      .array(z.object({ by: z.string(), decision: z.enum(['accept', 'reject']), note: z.string().nullable(), reason: z.string().nullable(), at: isoTime }))
      .optional()
      .describe('Where reviewers read it, while review rules are configured: the votes cast on it under its rule, in order (empty when no rule covers it, or after an edit restarted the count).'),
    approvals_needed: z.number().int().optional().describe('Where reviewers read it, while review rules are configured: how many distinct people must accept it (1 when no rule covers it).'),
    may_vote: z.array(z.string()).optional().describe('Where reviewers read it, while a review rule covers it and it is pending: the rule\'s reviewers and sign-offs who have not voted yet (a group stays listed while any member may).'),
  })
  .meta({ id: 'ContextProposal' });

/** The answer to an accept or reject: the proposal, and in words what happened and what remains. */
export const decidedProposal = proposal
  .extend({ message: z.string().describe('What the decision did: "Accepted.", or under a review rule "Approval recorded: 1 of 2, waiting for a second reviewer." until enough agree.') })
  .meta({ id: 'DecidedProposal' });

const requestStatus = z.enum(['queued', 'asked', 'escalated', 'proposed', 'accepted', 'rejected', 'failed'] as const satisfies readonly RequestStatus[]);

export const submitResult = z.object({
  request_id: z.string(),
  status: z.enum(['queued', 'deduped_open', 'deduped_resolved', 'failed']).describe('What the submit did: queued a new request, attached to an open or an accepted one (deduplicated), or failed it at once.'),
  request_status: requestStatus.describe('The request\'s own status right after the submit, as GET /requests/{id} would say it then: proposed when a library answer was offered instead of asking, asked when an expert was asked, queued when nobody is asked yet.'),
  reason: reason.optional(),
  proposal: proposal.optional(),
});

export const waiting = z
  .object({
    why: z
      .enum(['llm', 'quiet_hours', 'working_hours', 'away', 'dnd', 'cap', 'review'])
      .describe('llm: the LLM works on it before anyone is asked (judging whether a library answer fits, or drafting the question); quiet_hours: asks wait for quiet hours to end; cap: every expert who could answer is at a limit; review: an answer waits for a reviewer.'),
    expert_id: z.string().optional().describe('Whom it waits for, when that is one expert.'),
    until: isoTime.optional().describe('When the wait ends, when that is known.'),
    timezone: z
      .string()
      .optional()
      .describe("The IANA time zone whose clock until is read on, sent with until: the expert's for working hours, away, do-not-disturb and a daily limit; the organisation's for quiet hours."),
  })
  .meta({ id: 'Waiting' });

export const requestRecord = z
  .object({
    id: z.string(),
    consumer_id: z.string(),
    kind: z.string(),
    topic: z.string(),
    question: z.string(),
    asked_question: z
      .string()
      .nullable()
      .describe('The question the asks carry: drafted by the LLM, else the raw question; null while it is being drafted.'),
    context: z.record(z.string(), z.unknown()),
    target_experts: z.array(z.string()).nullable(),
    routing_policy: z.object({
      escalation_after: z.string(),
      give_up_after: z.string(),
      quiet_hours: z.tuple([z.string(), z.string()]).nullable(),
      max_open_asks_per_expert: z.number(),
      max_asks_per_expert_per_day: z.number(),
    }),
    dedup_key: z.string().nullable(),
    status: requestStatus,
    reason: reason.nullable(),
    asks: z.array(
      z.object({
        id: z.string(),
        expert_id: z.string(),
        sent_at: isoTime.nullable(),
        channel: z.enum(['console', 'slack', 'teams', 'email']).nullable().describe('Where the question went out; null while it waits to be sent.'),
        state: z.enum(['queued', 'open', 'answered', 'released', 'escalated', 'skipped']),
      }),
    ),
    asked: z
      .array(
        z.object({
          expert_id: z.string(),
          expert_name: z.string(),
          sent_at: isoTime.nullable().describe('Null while the ask waits to be sent.'),
          channel: z.enum(['console', 'slack', 'teams', 'email']).nullable().describe('Where the question went out to this expert; null while it waits to be sent.'),
          escalates_at: isoTime.nullable().describe('When the question passes to escalates_to if this expert has not answered.'),
          escalates_to: z.string().nullable().describe('The name of the expert asked next, if any.'),
        }),
      )
      .describe('The experts asked now (or about to be), by name.'),
    waiting: waiting
      .nullable()
      .describe('Why nobody is working on the request right now, and until when; null while an ask is out and once the request is closed.'),
    gives_up_at: isoTime.nullable().describe('When the request fails with timeout if nobody answered; null once it is closed, or while an answer waits for review.'),
    subscribers: z.array(z.string()),
    proposal_id: z.string().nullable(),
    proposal: proposal.nullable().describe('The latest proposal of the request, pending or decided, in full.'),
    created_at: isoTime,
    updated_at: isoTime,
  })
  .meta({ id: 'Request' });

export { idField, idParams, MAX_ID_LENGTH } from './id-field.js';

export const muteBody = z.object({ muted_by: z.string().trim().min(1).max(200).optional() }).strict().nullish();

export const decidedBy = z.string().trim().min(1).max(200).optional()
  .describe('Who decides. Required with the main admin token or without authentication; a named token or a signed-in person always decides as themselves, whatever this says.');
export const acceptBody = z
  .object({
    decided_by: decidedBy,
    note: z.string().max(4000).optional(),
    answer: z.string().trim().min(1).max(4000).optional().describe('The reviewer\'s corrected answer; the expert\'s text is kept as original_answer.'),
    structured: z.unknown().optional().describe('The reviewer\'s structured form; validated against the kind\'s schema.'),
  })
  .strict();
export const returnBody = z
  .object({
    decided_by: decidedBy,
    instructions: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .describe('What the expert should change or add. Required, except for an answer reused from the library, where sending back means "not a match, ask an expert".'),
  })
  .strict();
export const rejectBody = z
  .object({ decided_by: decidedBy, reason: z.string().trim().min(1).max(4000), note: z.string().max(4000).optional() })
  .strict();
export const pendingQuery = z.object({ status: z.literal('pending').default('pending') }).strict();

export { awayView, expertEntrySchema, expertView, putAwayBody, putExpertsBody, topicView } from './expert-schemas.js';

export const replyBody = z
  .object({ expert_id: z.string().min(1), text: z.string().min(1).max(10_000), request_id: z.string().min(1).optional() })
  .strict();

export const replyResult = z.object({
  request_id: z.string().nullable(),
  ask_id: z.string().nullable(),
  outcome: z.enum(['proposed', 'late_reply', 'muted', 'skipped', 'unmuted', 'ignored']),
  proposal_id: z.string().optional(),
});

export const auditQuery = z
  .object({
    request_id: z.string().min(1).optional().describe('The request whose steps to list.'),
    expert_id: z.string().min(1).optional().describe('Instead: the expert whose own trail to list (away, back).'),
  })
  .strict()
  .refine((q) => (q.request_id === undefined) !== (q.expert_id === undefined), { message: 'give exactly one of request_id and expert_id' });
export const auditEntry = z.object({
  at: isoTime,
  type: z.string(),
  actor: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export { consumerView, deliveryView, listDeliveriesQuery, registerConsumerBody } from './consumer-schemas.js';

/**
 * One entry of the reviewer's queue (`GET /queue`): a pending proposal with what a
 * reviewer needs from its request. `GET /proposals` keeps its plain shape; the web UI reads this.
 */
export const queueItem = z
  .object({
    proposal,
    request: z.object({
      id: z.string(),
      consumer_id: z.string(),
      kind: z.string(),
      topic: z.string(),
      question: z.string(),
      asked_question: z.string().nullable(),
      asked_because: z.string().nullable(),
      status: requestRecord.shape.status,
      created_at: isoTime,
    }),
    history: z
      .array(z.object({ proposal_id: z.string(), answer: z.string(), instructions: z.string().nullable(), returned_by: z.string(), returned_at: isoTime }))
      .describe('Earlier answers on this request that a reviewer sent back, oldest first.'),
  })
  .meta({ id: 'QueueItem' });
