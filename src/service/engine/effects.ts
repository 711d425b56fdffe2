import type { FailureCode, RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { closeAsk } from './close-ask.js';
import { countOutcome } from './insight-counts.js';
import { audit, emitEvent, type Engine } from './engine.js';
import { updateRequest } from './new-request.js';

/**
 * An expert's own audit trail (away, back) is kept with the requests' trails under this key: it is
 * about no request, and `GET /audit?expert_id=` reads it.
 */
export const expertTrail = (expertId: string) => `expert:${expertId}`;

/**
 * Fails an open request with exactly one reason code: releases its live asks, audits, and queues
 * `request_failed` for its subscribers, all in the caller's transaction. Returns the experts whose open
 * asks it released (their capacity is free again).
 */
export async function failRequest(engine: Pick<Engine, 'clock' | 'threadedTransport'>, tx: Tx, request: RequestRecord, code: FailureCode, message: string, now: number, actor = 'system'): Promise<string[]> {
  const freed: string[] = [];
  for (const ask of await tx.asks.listFor(request.id)) {
    if (ask.state === 'open') freed.push(ask.expert_id);
    if (ask.state === 'open' || ask.state === 'queued') await closeAsk(engine, tx, ask, 'released', { why: 'failed', code }, now);
  }
  // A request that fails while its question is drafted stops waiting for the draft.
  const drafting = request.drafting ? { drafting: false } : {};
  await countOutcome(tx, request, 'failed', { code, message });
  await updateRequest(tx, request, { status: 'failed', reason: { code, message }, held: false, ...drafting, updated_at: now });
  await audit(engine, tx, { request_id: request.id, at: now, type: 'failed', actor, data: { code, message } });
  await emitEvent(tx, request, 'request_failed', { reason: { code, message } }, now);
  return freed;
}
