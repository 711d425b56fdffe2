import type { z } from 'zod';
import type { answerStatsView, answerView, listAnswersQuery, retireBody } from './answer-schemas.js';
import type { meView, signInStateView } from './auth-schemas.js';
import type { consumerView, deliveryView, registeredConsumer } from './consumer-schemas.js';
import type { instanceList, instanceView } from './instance-schemas.js';
import type {
  acceptBody,
  auditEntry,
  errorBody,
  expertView,
  muteBody,
  proposal,
  putAwayBody,
  queueItem,
  rejectBody,
  requestRecord,
  returnBody,
  submitRequestBody,
  submitResult,
  topicView,
  waiting,
} from './schemas.js';
import type { revokeSessionsResult, sessionList, sessionView } from './session-schemas.js';

/**
 * The API's request and response types, inferred from the zod schemas that validate the routes and
 * write the OpenAPI document. Bodies a client sends are the schema's input (`z.input`: optional fields
 * may be left out); answers it reads are the output (`z.infer`). Import these, never restate a shape.
 */

// What a client sends.
export type SubmitRequestBody = z.input<typeof submitRequestBody>;
export type AcceptBody = NonNullable<z.input<typeof acceptBody>>;
export type RejectBody = z.input<typeof rejectBody>;
export type ReturnBody = z.input<typeof returnBody>;
export type MuteBody = NonNullable<z.input<typeof muteBody>>;
export type PutAwayBody = z.input<typeof putAwayBody>;
export type RetireBody = z.input<typeof retireBody>;
export type ListAnswersQuery = z.input<typeof listAnswersQuery>;

// What the server answers.
export type SubmitResult = z.infer<typeof submitResult>;
export type RequestRecord = z.infer<typeof requestRecord>;
export type Waiting = z.infer<typeof waiting>;
export type Proposal = z.infer<typeof proposal>;
export type QueueItem = z.infer<typeof queueItem>;
export type Expert = z.infer<typeof expertView>;
export type Topic = z.infer<typeof topicView>;
export type AuditEntry = z.infer<typeof auditEntry>;
export type Consumer = z.infer<typeof consumerView>;
export type Delivery = z.infer<typeof deliveryView>;
export type Answer = z.infer<typeof answerView>;
export type AnswerStats = z.infer<typeof answerStatsView>;
export type Me = z.infer<typeof meView>;
export type SignInState = z.infer<typeof signInStateView>;
export type ErrorBody = z.infer<typeof errorBody>;
export type RegisteredConsumer = z.infer<typeof registeredConsumer>;
export type Session = z.infer<typeof sessionView>;
export type SessionList = z.infer<typeof sessionList>;
export type RevokeSessionsResult = z.infer<typeof revokeSessionsResult>;
export type Instance = z.infer<typeof instanceView>;
export type InstanceList = z.infer<typeof instanceList>;

/** One page of a list answer (`GET /requests`, `/answers`, `/deliveries`): what `pageOf` (page.ts) validates. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
