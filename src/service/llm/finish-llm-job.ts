import { placeAsksOf } from '../routing/index.js';
import { gatherChanges, updateRequest, writeChanges, type Engine, type Routing } from '../engine/index.js';
import { createProposal } from '../review/index.js';
import type { Tx } from '../../store/store.js';
import type { LlmJobRecord } from '../../domain/records.js';
import { auditCall, auditFallback, type JobOutcome } from './audit-llm-call.js';

export type DraftOutcome = JobOutcome<{ question: string }>;
export type StructureOutcome = JobOutcome<{ structured: unknown; confidence: number }>;

/**
 * Ends a draft job (in the caller's transaction): the drafted question is stored on the request, or
 * the fallback to the raw question is audited, and the request stops waiting for it; then its queued
 * asks get their chance, with the usual limits (caps, quiet hours, mutes). A job already done (a
 * result arriving after the deadline fell back) or a request closed meanwhile only records the call.
 */
export async function finishDraft(engine: Routing & Pick<Engine, 'llm'>, tx: Tx, job: LlmJobRecord, outcome: DraftOutcome, now: number): Promise<void> {
  const fresh = await tx.llmJobs.finish(job.id, now);
  const request = fresh ? await tx.requests.get(job.request_id) : undefined;
  // Not waiting any more: the deadline fell back already, or the request closed (cancelled, timed out).
  const waiting = request !== undefined && request.drafting;
  if (outcome.reply) await auditCall(engine, tx, job, outcome, waiting, now);
  if (!waiting) return;
  // The draft's end and the asks it lets out change the request's row once.
  gatherChanges(request);
  if (outcome.result.ok) {
    await updateRequest(tx, request, { drafting: false, asked_question: outcome.result.question, updated_at: now });
  } else {
    await auditFallback(engine, tx, job, outcome.result.error, now);
    await updateRequest(tx, request, { drafting: false, updated_at: now });
  }
  await placeAsksOf(engine, tx, request, now);
  await writeChanges(tx, request);
}

/**
 * Ends a structuring job (in the caller's transaction) by creating the pending proposal whose id the
 * request already names: `structured` and `confidence` from the model, or `{text: <answer>}` and null
 * when structuring failed (audited). `provenance.llm` says which parts came from the model. A request
 * cancelled meanwhile gets no proposal.
 */
export async function finishStructuring(engine: Pick<Engine, 'clock' | 'review' | 'llm' | 'experts' | 'channels'>, tx: Tx, job: LlmJobRecord, outcome: StructureOutcome, now: number): Promise<void> {
  const fresh = await tx.llmJobs.finish(job.id, now);
  const base = job.proposal!;
  const request = fresh ? await tx.requests.get(job.request_id) : undefined;
  const waiting = request !== undefined && request.status === 'proposed' && request.proposal_id === base.id;
  if (outcome.reply) await auditCall(engine, tx, job, outcome, waiting, now);
  if (!waiting) return;
  const { result } = outcome;
  if (!result.ok) await auditFallback(engine, tx, job, result.error, now);
  await createProposal(
    engine,
    tx,
    request,
    {
      ...base,
      structured: result.ok ? result.structured : { text: base.answer },
      confidence: result.ok ? result.confidence : null,
      provenance: { ...base.provenance, llm: { model: engine.llm!.model, drafted: request.asked_question !== null, structured: result.ok } },
      created_at: now,
    },
    now,
  );
}
