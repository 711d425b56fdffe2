import type { InsightFilters } from './routes.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The preset ranges, as the URL names them; the first is the default (the API's own default). */
export const RANGES: ReadonlyArray<{ value: string; label: string; days: number }> = [
  { value: '30d', label: 'Last 30 days', days: 30 },
  { value: '90d', label: 'Last 90 days', days: 90 },
  { value: '1y', label: 'Last year', days: 365 },
  // Three years with a leap day: the longest window the API answers.
  { value: '3y', label: 'Last 3 years', days: 3 * 365 + 1 },
];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar day written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(text);
}

/** How far `zone`'s clock is ahead of UTC at the instant `ms` (whole seconds). */
function offsetMs(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(ms / 1000) * 1000;
}

/** The instant a day (YYYY-MM-DD) begins in `zone`: its weeks and days are the ones the API groups by. */
export function startOfDay(day: string, zone: string): number {
  const utc = Date.parse(`${day}T00:00:00Z`);
  // Twice: the offset at the first guess may differ from the one at midnight (a DST change that day).
  const guess = utc - offsetMs(utc, zone);
  return utc - offsetMs(guess, zone);
}

/** The next day of a YYYY-MM-DD day. */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

export type InsightWindow = { from: string; to: string } | { error: string };

/**
 * The window the filters name, as `from` (inclusive) and `to` (exclusive) instants. A preset ends at
 * the next whole hour (figures are kept per hour, so the window stays the same all hour); days run
 * from the start of `from` to the end of `to` in the organisation's time zone.
 */
export function windowOf(filters: Pick<InsightFilters, 'range' | 'from' | 'to'>, now: number, zone: string): InsightWindow {
  const nextHour = Math.ceil(now / HOUR_MS) * HOUR_MS;
  if (filters.from || filters.to) {
    if (filters.from && !isDay(filters.from)) return { error: 'The start day is not a date (YYYY-MM-DD).' };
    if (filters.to && !isDay(filters.to)) return { error: 'The end day is not a date (YYYY-MM-DD).' };
    const to = filters.to ? startOfDay(nextDay(filters.to), zone) : nextHour;
    const from = filters.from ? startOfDay(filters.from, zone) : to - 30 * DAY_MS;
    if (from >= to) return { error: 'The start day must be on or before the end day.' };
    return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  }
  const days = (RANGES.find((r) => r.value === filters.range) ?? RANGES[0]!).days;
  return { from: new Date(nextHour - days * DAY_MS).toISOString(), to: new Date(nextHour).toISOString() };
}
