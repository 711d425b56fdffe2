import { DateTime } from 'luxon';

/** A consumer's quota day: the local calendar day (in `timeZone`) that contains an instant. */
export interface QuotaDay {
  /** The local midnight the day began at: requests created since then count. */
  start: number;
  /** The next local midnight: when the count starts again. */
  resetsAt: number;
}

/**
 * The quota day around `now`. Days are calendar days in the zone, so one that changes daylight-saving
 * time is 23 or 25 hours long; a zone whose clocks skip midnight begins the day at its first instant.
 */
export function quotaDay(now: number, timeZone: string): QuotaDay {
  const local = DateTime.fromMillis(now, { zone: timeZone }).startOf('day');
  return { start: local.toMillis(), resetsAt: local.plus({ days: 1 }).startOf('day').toMillis() };
}

/** Whole seconds from `now` to `at`, at least 1: a `Retry-After` value that never says "now" too early. */
export function secondsUntil(now: number, at: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}
