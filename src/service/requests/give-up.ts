import { formatDuration } from '../../config/durations.js';
import type { FailureCode, RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { failRequest, type Engine } from '../engine/index.js';

/**
 * The reason an open request gives up with: `rate_limited` when it never got placed (still
 * held: every candidate stayed at a cap), otherwise `timeout`.
 */
export function giveUpReason(request: Pick<RequestRecord, 'held'>): FailureCode {
  return request.held ? 'rate_limited' : 'timeout';
}

/**
 * `give_up_after` has passed for an open request without a proposal: it fails with `timeout` or
 * `rate_limited`, every live ask is released and `request_failed` is queued, all at `now`.
 * Adds the experts whose open asks were released to `freed`.
 */
export async function giveUp(engine: Pick<Engine, 'clock' | 'log' | 'threadedTransport'>, tx: Tx, request: RequestRecord, now: number, freed: Set<string>): Promise<FailureCode> {
  const code = giveUpReason(request);
  const after = formatDuration(request.routing_policy.give_up_after);
  const message =
    code === 'rate_limited'
      ? `Every expert who could answer stayed at a rate-limit cap for the whole give_up_after (${after}).`
      : `Nobody replied within give_up_after (${after}).`;
  for (const id of await failRequest(engine, tx, request, code, message, now)) freed.add(id);
  engine.log.info({ request_id: request.id, code }, 'request gave up');
  return code;
}
