import type { z } from 'zod';
import { policyOf, type Policy } from '../../config/config-schema.js';
import { normalizeTopic } from '../../core/normalize-topic.js';
import { badRequest } from '../../errors.js';
import { newId } from '../../ids.js';
import { draftsQuestion, queueDraft, audit, emitEvent, type Engine, type Intake, newRequest, writeNewRequest } from '../engine/index.js';
import type { Reason, RequestRecord, RequestStatus } from '../../domain/records.js';
import { OPEN_STATUSES } from '../../domain/records.js';
import { checkDailyQuota } from '../consumers/index.js';
import type { Tx } from '../../store/store.js';
import { routeAndAsk } from '../routing/index.js';
import { type LibraryCandidates, offerReuse } from './reuse-answer.js';
import { proposalBody, type ProposalBody } from '../review/index.js';
import type { submitRequestBody } from '../../wire/schemas.js';

/**
 * A submit, as the submit body reads once validated (`z.output`: routing durations in ms, strings
 * trimmed): the limits are the schema's. `routing_policy` is the routing limits this request sets
 * itself, and whether a library answer may be offered instead of asking (`reuse`).
 */
export type SubmitInput = z.output<typeof submitRequestBody>;

export type SubmitStatus = 'queued' | 'deduped_open' | 'deduped_resolved' | 'failed';

export interface SubmitResult {
  request_id: string;
  status: SubmitStatus;
  /** The request's own status right after the submit: `proposed` when the library answered it, `asked`, … */
  request_status: RequestStatus;
  reason?: Reason;
  proposal?: ProposalBody;
  /** Internal, never on the wire: a library answer was proposed, so events (not asks) were queued. */
  reused?: true;
}

/** Default deduplication window. */
export const DEFAULT_DEDUP_WINDOW_MS = 86_400_000;

export interface SubmitOptions {
  /** The submitting consumer's `dedup_window` in ms, when it is registered. */
  dedupWindowMs?: number;
  /** Requests the consumer may submit per local day (its own quota or the default); unset: no limit. */
  dailyQuota?: number | null;
  /** The library entries it could be offered (none when reuse is off), looked up before the transaction (`prefetchReuse`). */
  library: LibraryCandidates;
}

/** Submits a request in the caller's transaction: deduplicated, routed and asked (or held, or failed at once). */
export async function submitRequest(engine: Intake, tx: Tx, input: SubmitInput, options: SubmitOptions): Promise<SubmitResult> {
  const unknown = (input.target_experts ?? []).filter((id) => !engine.experts.has(id));
  if (unknown.length > 0) {
    throw badRequest(
      'target_experts names experts that are not in the registry.',
      unknown.map((id) => ({ path: 'target_experts', message: `unknown expert id "${id}"` })),
    );
  }
  const now = engine.clock.now();
  // `reuse` was applied when the library was looked up (libraryFor); it is not a limit.
  const { reuse: _reuse, ...limits } = input.routing_policy ?? {};
  const ownPolicy = stripUndefined(limits);
  // give_up_after may be shorter than escalation_after: the request then gives up before anyone else
  // is asked (an agent that needs an answer within 15 minutes sets only give_up_after).
  const policy: Policy = { ...policyOf(engine.config.defaults), ...ownPolicy };
  const consumerActor = `consumer:${input.consumer_id}`;

  if (input.dedup_key !== undefined) {
    const window = options.dedupWindowMs ?? DEFAULT_DEDUP_WINDOW_MS;
    const existing = await tx.requests.findByDedupKey(input.dedup_key, now - window);
    const deduped = existing && (await dedupAgainst(engine, tx, existing, input.consumer_id, now));
    if (deduped) return deduped;
  }
  // After deduplication: a submit answered with an existing request creates nothing, so it is not
  // refused and does not count.
  if (options.dailyQuota != null) await checkDailyQuota(engine.config, tx, input.consumer_id, options.dailyQuota, now);

  const request: RequestRecord = newRequest({
    id: newId('req'),
    consumer_id: input.consumer_id,
    kind: input.kind ?? 'answer',
    topic: normalizeTopic(input.topic),
    question: input.question,
    context: input.context,
    target_experts: input.target_experts && input.target_experts.length > 0 ? input.target_experts : null,
    routing_policy: policy,
    own_policy: ownPolicy,
    dedup_key: input.dedup_key ?? null,
    status: 'queued',
    reason: null,
    proposal_id: null,
    held: false,
    drafting: engine.llm !== null,
    asked_question: null,
    give_up_at: now + policy.give_up_after,
    warn_at: warnAt(engine.config, now, now + policy.give_up_after),
    created_at: now,
    updated_at: now,
  });
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'received',
    actor: consumerActor,
    data: { topic: request.topic, kind: request.kind, dedup_key: request.dedup_key },
  });
  const reused = await offerReuse(engine, tx, request, options.library, now);
  // The proposal made of the entry is written straight to the store (the request object is not updated).
  if (reused === 'reused') return { request_id: request.id, status: 'queued', request_status: 'proposed', reused: true };
  // The model judges a library entry first; the request is routed (or answered) when it has.
  if (reused === 'judging') return { request_id: request.id, status: 'queued', request_status: request.status };
  request.drafting = await draftsQuestion(engine, tx, request, now);
  const outcome = await routeAndAsk(engine, tx, request, now);
  if (outcome !== 'failed' && request.drafting) await queueDraft(engine, tx, request, now);
  await writeNewRequest(tx, request);
  if (outcome === 'failed') return { request_id: request.id, status: 'failed', request_status: request.status, reason: request.reason! };
  return { request_id: request.id, status: 'queued', request_status: request.status };
}

/**
 * When a new request warns its subscribers that it is about to give up: `warn_before` ahead of its
 * give-up time. None when no `warn_before` is set, or when it is as long as the whole wait (the
 * warning would go out as the request is submitted, telling nothing new).
 */
function warnAt(config: Engine['config'], now: number, giveUpAt: number): number | null {
  const before = config.defaults.warn_before ?? null;
  return before !== null && giveUpAt - before > now ? giveUpAt - before : null;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function dedupAgainst(engine: Pick<Engine, 'clock'>, tx: Tx, existing: RequestRecord, consumerId: string, now: number): Promise<SubmitResult | null> {
  const open = OPEN_STATUSES.includes(existing.status);
  const resolved = existing.status === 'accepted' && existing.proposal_id !== null;
  if (!open && !resolved) return null; // rejected or failed: ask again
  const attached = await tx.requests.addSubscriber(existing.id, consumerId, 'dedup', now);
  const status = open ? 'deduped_open' : 'deduped_resolved';
  await audit(engine, tx, {
    request_id: existing.id,
    at: now,
    type: 'deduped',
    actor: `consumer:${consumerId}`,
    data: { consumer_id: consumerId, outcome: status, newly_attached: attached },
  });
  if (open) return { request_id: existing.id, status, request_status: existing.status };
  const proposal = proposalBody((await tx.proposals.get(existing.proposal_id!))!);
  // The new subscriber gets the accepted answer at once, as every subscriber did on acceptance.
  await emitEvent(tx, existing, 'proposal_accepted', { proposal }, now, [consumerId]);
  return { request_id: existing.id, status, request_status: existing.status, proposal };
}
