import { formatDuration } from '../config/durations.js';
import { guarded, placeAsksOf } from './place-waiting.js';
import { createProposal } from './create-proposal.js';
import type { Tx } from '../store/store.js';
import { audit, type Engine } from './engine.js';
import type { LlmJobRecord } from '../domain/records.js';
import type { LlmReply } from '../llm/create-llm-client.js';

/** How a job ended: the call made for it (null when none was), and the checked result or why it is unusable. */
export interface JobOutcome<T> {
  reply: LlmReply | null;
  result: ({ ok: true } & T) | { ok: false; error: string };
}

export type DraftOutcome = JobOutcome<{ question: string }>;
export type StructureOutcome = JobOutcome<{ structured: unknown; confidence: number }>;

/**
 * Audits a call (`llm_call`): stage, model, latency and token usage, never the prompt. `used`
 * is false for a result nobody waits for any more: the draft deadline fell back first, or the request
 * was cancelled meanwhile.
 */
async function auditCall(engine: Engine, tx: Tx, job: LlmJobRecord, outcome: JobOutcome<object>, used: boolean, now: number): Promise<void> {
  const reply = outcome.reply!;
  await audit(engine, tx, {
    request_id: job.request_id,
    at: now,
    type: 'llm_call',
    actor: 'system',
    data: {
      stage: job.stage,
      model: engine.llm!.model,
      latency_ms: reply.latency_ms,
      usage: reply.ok ? reply.usage : null,
      outcome: !reply.ok ? 'error' : outcome.result.ok ? 'ok' : 'invalid',
      used,
    },
  });
}

async function auditFallback(engine: Engine, tx: Tx, job: LlmJobRecord, error: string, now: number): Promise<void> {
  await audit(engine, tx, { request_id: job.request_id, at: now, type: 'llm_fallback', actor: 'system', data: { stage: job.stage, model: engine.llm!.model, error } });
}

/**
 * Ends a draft job (in the caller's transaction): the drafted question is stored on the request, or
 * the fallback to the raw question is audited, and the request stops waiting for it; then its queued
 * asks get their chance, with the usual limits (caps, quiet hours, mutes). A job already done (a
 * result arriving after the deadline fell back) or a request closed meanwhile only records the call.
 */
export async function finishDraft(engine: Engine, tx: Tx, job: LlmJobRecord, outcome: DraftOutcome, now: number): Promise<void> {
  const fresh = await tx.llmJobs.finish(job.id, now);
  const request = fresh ? await tx.requests.get(job.request_id) : undefined;
  // Not waiting any more: the deadline fell back already, or the request closed (cancelled, timed out).
  const waiting = request !== undefined && request.drafting;
  if (outcome.reply) await auditCall(engine, tx, job, outcome, waiting, now);
  if (!waiting) return;
  if (outcome.result.ok) {
    await tx.requests.update(request.id, { drafting: false, asked_question: outcome.result.question, updated_at: now });
  } else {
    await auditFallback(engine, tx, job, outcome.result.error, now);
    await tx.requests.update(request.id, { drafting: false, updated_at: now });
  }
  await placeAsksOf(engine, tx, request.id, now);
}

/**
 * Ends a structuring job (in the caller's transaction) by creating the pending proposal whose id the
 * request already names: `structured` and `confidence` from the model, or `{text: <answer>}` and null
 * when structuring failed (audited). `provenance.llm` says which parts came from the model. A request
 * cancelled meanwhile gets no proposal.
 */
export async function finishStructuring(engine: Engine, tx: Tx, job: LlmJobRecord, outcome: StructureOutcome, now: number): Promise<void> {
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

/** Drafts finished per transaction when their deadlines pass, and at most per tick. */
const EXPIRE_BATCH = 500;
const EXPIRE_PER_TICK = 5_000;

/**
 * The draft deadline (the first ask waits for its draft, bounded by `llm.timeout`): every
 * draft still pending `llm.timeout` after its submission falls back, and its asks go out with the raw
 * question. Runs each tick, so neither a slow model nor a restart after downtime leaves a request
 * waiting; a call still in flight for it is recorded when it returns, and not used.
 */
export async function expireDrafts(engine: Engine, now: number): Promise<number> {
  const error = `no draft within llm.timeout (${formatDuration(engine.llm!.timeoutMs)})`;
  const outcome: DraftOutcome = { reply: null, result: { ok: false, error } };
  // One transaction per batch without a savepoint per draft; if a draft throws, the batch is redone
  // one draft at a time (`guarded`), so only that request fails (reason `error`) and the rest go out.
  const batch = (oneByOne: boolean) =>
    engine.store.transaction(async (tx) => {
      const due = await tx.llmJobs.expiredDrafts(now, EXPIRE_BATCH);
      for (const job of due) {
        if (!oneByOne) await finishDraft(engine, tx, job, outcome, now);
        else if (!(await guarded(engine, tx, job.request_id, now, (inner) => finishDraft(engine, inner, job, outcome, now)))) await tx.llmJobs.finish(job.id, now);
      }
      return due.length;
    });
  let handled = 0;
  while (handled < EXPIRE_PER_TICK) {
    let jobs: number;
    try {
      jobs = await batch(false);
    } catch (err) {
      engine.log.warn({ err }, 'a batch of expired drafts failed; redoing it one request at a time');
      jobs = await batch(true);
    }
    handled += jobs;
    if (jobs < EXPIRE_BATCH) break;
  }
  if (handled > 0) engine.log.warn({ drafts: handled, error }, 'LLM drafts fell back at their deadline; their asks go out with the raw question');
  return handled;
}
