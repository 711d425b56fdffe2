import type { LlmJobRecord } from '../../domain/records.js';
import type { LlmReply } from '../../llm/create-llm-client.js';
import type { Tx } from '../../store/store.js';
import { audit, type Engine } from '../engine/index.js';

/** How a job ended: the call made for it (null when none was), and the checked result or why it is unusable. */
export interface JobOutcome<T> {
  reply: LlmReply | null;
  result: ({ ok: true } & T) | { ok: false; error: string };
}

/**
 * Audits a call (`llm_call`): stage, model, latency and token usage, never the prompt. `used`
 * is false for a result nobody waits for any more: its deadline fell back first, or the request
 * was cancelled meanwhile.
 */
export async function auditCall(engine: Pick<Engine, 'clock' | 'llm'>, tx: Tx, job: LlmJobRecord, outcome: JobOutcome<object>, used: boolean, now: number): Promise<void> {
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

/** Audits a fallback (`llm_fallback`): the stage, the model and why its result could not be used. */
export async function auditFallback(engine: Pick<Engine, 'clock' | 'llm'>, tx: Tx, job: LlmJobRecord, error: string, now: number): Promise<void> {
  await audit(engine, tx, { request_id: job.request_id, at: now, type: 'llm_fallback', actor: 'system', data: { stage: job.stage, model: engine.llm!.model, error } });
}

