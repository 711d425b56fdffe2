import { quotaDay, secondsUntil } from '../../core/consumer-day.js';
import type { ConsumerRecord } from '../../domain/records.js';
import { AppError } from '../../errors.js';
import type { Tx } from '../../store/store.js';
import type { Engine } from '../engine/index.js';

/** The daily request quota of a consumer: its own, else the default; null when nothing limits it. */
export function dailyQuotaOf(config: Engine['config'], consumer: Pick<ConsumerRecord, 'max_requests_per_day'> | undefined): number | null {
  return consumer?.max_requests_per_day ?? config.defaults.max_requests_per_consumer_per_day ?? null;
}

/**
 * Refuses a new request when its consumer already submitted `quota` requests today (since midnight in
 * the organisation's zone): `rate_limited` with when the count starts again. Counted in the submit's
 * transaction, where the store makes concurrent counts for one consumer take turns, so several
 * instances never let more through than the quota.
 */
export async function checkDailyQuota(config: Engine['config'], tx: Tx, consumerId: string, quota: number, now: number): Promise<void> {
  const day = quotaDay(now, config.org.timezone);
  const submitted = await tx.requests.countSubmittedSince(consumerId, day.start);
  if (submitted < quota) return;
  const resetsAt = new Date(day.resetsAt).toISOString();
  throw new AppError(
    'rate_limited',
    `Consumer "${consumerId}" has submitted its ${quota} requests for today; it may submit again from ${resetsAt}.`,
    [{ path: 'consumer_id', message: `daily quota of ${quota} requests reached`, limit: quota, resets_at: resetsAt }],
    secondsUntil(now, day.resetsAt),
  );
}
