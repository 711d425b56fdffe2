import { newId } from '../../ids.js';
import type { LlmJobRecord, ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, countOne, type Engine, type Drafting } from './engine.js';

/** A proposal before it is structured: everything but `structured`, `confidence` and `created_at`. */
export type UnstructuredProposal = Omit<ProposalRecord, 'structured' | 'confidence' | 'created_at'>;

/** Max calls for one job; one more start (after crashes mid-call) falls back without calling. */
export const MAX_LLM_ATTEMPTS = 3;

function job(stage: LlmJobRecord['stage'], requestId: string, now: number, extra: Partial<LlmJobRecord>): LlmJobRecord {
  return {
    id: newId('llm'),
    stage,
    request_id: requestId,
    proposal: null,
    state: 'pending',
    attempts: 0,
    deadline_at: null,
    created_at: now,
    finished_at: null,
    ...extra,
  };
}

/**
 * Queues the drafting of a new request's question, in the submit transaction. Its asks
 * are planned but wait (`queued`) until the draft ends, or until `llm.timeout` after submission, when
 * they go out with the raw question.
 */
export async function queueDraft(engine: Pick<Engine, 'llm' | 'llmBacklog'>, tx: Tx, request: RequestRecord, now: number): Promise<void> {
  const timeout = engine.llm!.timeoutMs;
  await tx.llmJobs.insert(job('draft', request.id, now, { deadline_at: now + timeout }));
  engine.llmBacklog?.queued();
}

/**
 * Whether a request about to be routed waits for its question to be drafted: with an LLM, unless the
 * model is so far behind that no draft could be ready within `llm.timeout` (`LlmBacklog`). Then the
 * request would wait the whole timeout for nothing: it is asked with the raw question at once, and the
 * fallback is audited (`llm_fallback`) and counted.
 */
export async function draftsQuestion(engine: Drafting, tx: Tx, request: RequestRecord, now: number): Promise<boolean> {
  if (engine.llm === null) return false;
  const behind = engine.llmBacklog?.behind() ?? null;
  if (behind === null) return true;
  const error = engine.llmBacklog!.describe(behind);
  await audit(engine, tx, { request_id: request.id, at: now, type: 'llm_fallback', actor: 'system', data: { stage: 'draft', model: engine.llm.model, error } });
  countOne(engine.counters.llmFailures, 'draft behind');
  return false;
}

/**
 * Queues the structuring of an answer, in the reply transaction. The request is `proposed`
 * at once and names the proposal's id, so the give-up timer leaves it alone and later replies are
 * late; the proposal itself is created when structuring ends (with the verbatim answer if it fails).
 */
export async function queueStructuring(tx: Tx, request: RequestRecord, proposal: UnstructuredProposal, now: number): Promise<void> {
  await tx.llmJobs.insert(job('structure', request.id, now, { proposal }));
  await tx.requests.update(request.id, { status: 'proposed', proposal_id: proposal.id, held: false, updated_at: now });
  request.status = 'proposed';
  request.proposal_id = proposal.id;
}

/**
 * Queues the model's judgement of whether a library entry answers a new request, in the submit
 * transaction. Nobody is asked meanwhile; at `llm.timeout` after submission the lexical rule decides
 * instead, so a slow or dead model delays the request by at most that.
 */
export async function queueMatch(engine: Pick<Engine, 'llm' | 'llmBacklog'>, tx: Tx, request: RequestRecord, now: number): Promise<void> {
  await tx.llmJobs.insert(job('match', request.id, now, { deadline_at: now + engine.llm!.timeoutMs }));
  engine.llmBacklog?.queued();
}
