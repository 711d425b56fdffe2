import { z } from 'zod';
import { idCursor } from './cursor.js';
import { isoTime } from './iso-time.js';
import { pageOf } from './page.js';

/** The wire shapes of consumers and their deliveries (`/consumers`, `/deliveries`). */

export const registerConsumerBody = z
  .object({
    id: z.string().trim().min(1).max(200).regex(/^[\w.:@-]+$/, 'may contain letters, digits and . _ : @ - only'),
    handles_kinds: z.array(z.string().trim().min(1).max(100)).min(1),
    delivery: z
      .object({
        type: z.literal('webhook'),
        url: z.string().min(1).max(2000),
        secret: z
          .string()
          .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by base64 of at least 24 bytes')
          .optional(),
      })
      .strict(),
    dedup_window: z.string().min(2).max(50).optional(),
    auto_accept: z.boolean().optional(),
    kind_schemas: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    max_requests_per_day: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Requests this consumer may submit per day, counted from midnight in the organisation\'s time zone; beyond it a submit answers 429. Unset: the server default (none unless configured).'),
  })
  .strict()
  .meta({ id: 'ConsumerRegistration' });

/** What registering answers: the consumer's id and the secret its webhooks are signed with. */
export const registeredConsumer = z.object({ id: z.string(), signing_secret: z.string() });

export const consumerView = z
  .object({
    id: z.string(),
    handles_kinds: z.array(z.string()),
    delivery: z.union([z.object({ type: z.literal('webhook'), url: z.string() }), z.object({ type: z.literal('in_process') })]),
    dedup_window: z.string(),
    auto_accept: z.boolean(),
    kind_schemas: z.record(z.string(), z.unknown()).nullable(),
    max_requests_per_day: z.number().int().nullable().describe('Its own daily request quota; null: the server default applies.'),
    created_at: isoTime,
    updated_at: isoTime,
  })
  .meta({ id: 'Consumer' });

/** One kind consumers handle (`GET /kinds`), with its capture schema. */
export const kindView = z.object({ kind: z.string(), schema: z.unknown(), consumers: z.array(z.string()) });

export const deliveryView = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event: z.string().nullable().describe('proposal_accepted, proposal_rejected, request_failed, request_expiring or proposal'),
    consumer_id: z.string(),
    request_id: z.string(),
    state: z.enum(['pending', 'delivered', 'dead', 'dropped']),
    attempts: z.number().int(),
    next_attempt_at: isoTime.nullable(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: isoTime,
    delivered_at: isoTime.nullable(),
  })
  .meta({ id: 'Delivery' });

export const listDeliveriesQuery = z
  .object({
    consumer_id: z.string().min(1).optional(),
    state: z.enum(['pending', 'delivered', 'dead', 'dropped']).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: idCursor('dlv'),
  })
  .strict();

export const deliveryPage = pageOf(deliveryView);
