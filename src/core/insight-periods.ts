import { DateTime } from 'luxon';

/**
 * The organisation's days and weeks (Monday first) that the insight rollups are also kept by, so a
 * long window is read from a few rows per week instead of every hour. An hour belongs to the day and
 * week its start falls in.
 */
export type PeriodUnit = 'day' | 'week';

/** The start (epoch ms) of the day or week in `zone` that `ms` falls in. */
export function periodStart(ms: number, zone: string, unit: PeriodUnit): number {
  return DateTime.fromMillis(ms, { zone }).startOf(unit).toMillis();
}

/** The start (epoch ms) of the day or week in `zone` after the one `ms` falls in. */
export function periodEnd(ms: number, zone: string, unit: PeriodUnit): number {
  return nextStart(periodStart(ms, zone, unit), zone, unit);
}

function nextStart(start: number, zone: string, unit: PeriodUnit): number {
  return DateTime.fromMillis(start, { zone }).plus(unit === 'week' ? { weeks: 1 } : { days: 1 }).toMillis();
}

/** A span [from, to) of epoch ms. */
export type Span = readonly [from: number, to: number];

/** Where a window's rows are read: whole weeks, whole days, and the hours around them. */
export interface WindowTiers {
  weeks: Span | null;
  days: Span[];
  hours: Span[];
}

/** The spans given that are not empty. */
const spansOf = (...spans: Span[]): Span[] => spans.filter(([a, b]) => a < b);

/** The first start of `unit` at or after `ms`. */
function firstWholeStart(ms: number, zone: string, unit: PeriodUnit): number {
  const start = periodStart(ms, zone, unit);
  return start >= ms ? start : nextStart(start, zone, unit);
}

/**
 * The window [from, to) as whole weeks, whole days beside them and hours at its ends (hour rows
 * counted by their start). Every hour of the window is in exactly one part. `coarsest: 'day'` leaves
 * the weeks out (whole days instead), for figures per day: a week row cannot say which of its days.
 */
export function windowTiers(from: number, to: number, zone: string, coarsest: PeriodUnit = 'week'): WindowTiers {
  const dayFrom = firstWholeStart(from, zone, 'day');
  const dayTo = periodStart(to, zone, 'day');
  if (!(dayFrom < dayTo)) return { weeks: null, days: [], hours: [[from, to]] };
  const hours = spansOf([from, dayFrom], [dayTo, to]);
  if (coarsest === 'day') return { weeks: null, days: [[dayFrom, dayTo]], hours };
  const weekFrom = firstWholeStart(dayFrom, zone, 'week');
  const weekTo = periodStart(dayTo, zone, 'week');
  if (!(weekFrom < weekTo)) return { weeks: null, days: [[dayFrom, dayTo]], hours };
  const days = spansOf([dayFrom, weekFrom], [weekTo, dayTo]);
  return { weeks: [weekFrom, weekTo], days, hours };
}
