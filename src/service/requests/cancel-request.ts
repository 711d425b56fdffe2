import { notFound } from '../../errors.js';
import { placeWaiting } from '../routing/index.js';
import type { RequestRecord } from '../../domain/records.js';
import { OPEN_STATUSES } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, type Engine, type Routing, failRequest } from '../engine/index.js';
import { updateReviewCard } from '../review/index.js';

/**
 * Cancels an open request: it fails with reason `cancelled`, its asks are released and
 * `request_failed` is delivered. A pending proposal is withdrawn (rejected by `expertq`) so it leaves
 * the review queue; consumers hear of it through `request_failed`. A resolved request is left as is.
 * The experts it released take waiting work at once, in the caller's transaction.
 */
export async function cancelRequest(engine: Routing & Pick<Engine, 'review'>, tx: Tx, requestId: string, by: string): Promise<RequestRecord> {
  const now = engine.clock.now();
  const request = await tx.requests.get(requestId);
  if (!request) throw notFound('Request', requestId);
  if (!OPEN_STATUSES.includes(request.status)) return request;
  if (request.proposal_id) {
    await tx.proposals.decide(request.proposal_id, 'rejected', {
      decided_by: 'expertq',
      note: null,
      reason: 'request cancelled',
      decided_at: now,
    });
    await updateReviewCard(engine.review, tx, { id: request.proposal_id, request_id: request.id }, now);
  }
  await audit(engine, tx, { request_id: request.id, at: now, type: 'cancelled', actor: by, data: {} });
  await failRequest(engine, tx, request, 'cancelled', 'The request was cancelled before it resolved.', now, by);
  await placeWaiting(engine, tx, new Set((await tx.asks.listFor(request.id)).map((a) => a.expert_id)), now);
  return request;
}
