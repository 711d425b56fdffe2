import { iso } from '../../clock.js';
import { formatShortDuration } from '../../config/durations.js';
import { isWaiting } from '../../domain/records.js';
import { audit, emitEvent, type Engine, type Attendance } from '../engine/index.js';
import { waitingOf } from '../availability/index.js';
import type { Tx } from '../../store/store.js';

/**
 * `warn_before` ahead of its give-up time, an open request tells its subscribers it is about to give
 * up (`request_expiring {gives_up_at, waiting}`), so an agent can decide whether to keep waiting. The
 * due-work read locks nothing, so the request is read again here, under its lock: another instance may
 * have warned, answered or closed it since. `warn_at` is cleared in the same transaction as the event
 * is queued, so the warning goes out once, whatever the instances and restarts. Returns whether it did.
 */
export async function warnExpiring(engine: Attendance & Pick<Engine, 'store' | 'clock' | 'log'>, tx: Tx, requestId: string, now: number): Promise<boolean> {
  const request = await tx.requests.get(requestId);
  if (!request || !isWaiting(request) || request.warn_at === null || request.warn_at > now || request.give_up_at <= now) return false;
  await tx.requests.update(request.id, { warn_at: null });
  const givesUpAt = iso(request.give_up_at);
  const waiting = await waitingOf(engine, request, await tx.asks.listFor(request.id), now);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'expiring',
    actor: 'system',
    data: { gives_up_at: givesUpAt, in: formatShortDuration(request.give_up_at - now) },
  });
  await emitEvent(tx, request, 'request_expiring', { gives_up_at: givesUpAt, waiting }, now);
  engine.log.info({ request_id: request.id, gives_up_at: givesUpAt }, 'request expiring: subscribers warned');
  return true;
}
