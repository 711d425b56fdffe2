import { endOfWindowAt, localDate, minutesOf, wallInstant, windowsAround } from './daily-windows.js';

export { minutesOf };

/**
 * Calendar arithmetic in an IANA time zone with `Intl` only (no tables): the local wall clock at an
 * instant, and the instant a local day starts. DST-safe: offsets are read at the instant in question.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function localTime(ms: number, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(ms)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** Local time minus UTC at an instant, in ms (e.g. +3_600_000 for Berlin in winter). */
export function zoneOffset(ms: number, timeZone: string): number {
  const t = localTime(ms, timeZone);
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The first instant of a local wall-clock time on a date. When that wall time does not exist (the
 * spring-forward gap), the first instant after the gap is returned.
 */
export function instantOf(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // Candidates: wall time read with the offsets in force just before and just after it.
  const candidates = [wall - zoneOffset(wall - 86_400_000, timeZone), wall - zoneOffset(wall + 86_400_000, timeZone)];
  const exact = candidates.filter((c) => {
    const t = localTime(c, timeZone);
    return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute) === wall;
  });
  if (exact.length > 0) return Math.min(...exact);
  // In a gap: find the first instant whose local wall time is at or past the asked-for one.
  let lo = Math.min(...candidates);
  let hi = Math.max(...candidates);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const t = localTime(mid, timeZone);
    if (Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

const lastDay = new Map<string, { start: number; end: number }>();

/** The instant the local calendar day containing `ms` began. Remembers the last day per zone (hot path). */
export function startOfLocalDay(ms: number, timeZone: string): number {
  const cached = lastDay.get(timeZone);
  if (cached && ms >= cached.start && ms < cached.end) return cached.start;
  const t = localTime(ms, timeZone);
  const start = instantOf(t.year, t.month, t.day, 0, 0, timeZone);
  const next = new Date(Date.UTC(t.year, t.month - 1, t.day + 1));
  const end = instantOf(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), 0, 0, timeZone);
  lastDay.set(timeZone, { start, end });
  return start;
}

/** The calendar date `days` after a local date (date arithmetic only; no zone involved). */
function addDays(year: number, month: number, day: number, days: number): { year: number; month: number; day: number } {
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/**
 * The instant the next local calendar day begins: when `asks_today` resets. On daylight-saving change
 * days the local day is 23 or 25 hours long, so this is never "start of today + 24 h".
 */
export function startOfNextLocalDay(ms: number, timeZone: string): number {
  const t = localTime(ms, timeZone);
  const next = addDays(t.year, t.month, t.day, 1);
  return instantOf(next.year, next.month, next.day, 0, 0, timeZone);
}

/**
 * When the quiet-hours window around `ms` ends: the first local `end` time strictly after `ms` (today's
 * or tomorrow's), resolved in the zone on that date, so a DST change overnight moves it correctly. An
 * end inside a spring-forward gap ends the window at the first instant after the gap; an end the clock
 * shows twice (fall back) is its second showing, as `isQuietAt` reads it.
 */
export function quietHoursEnd(ms: number, timeZone: string, window: readonly [string, string]): number {
  const end = minutesOf(window[1]);
  const today = localDate(ms, timeZone);
  for (let days = 0; days <= 2; days++) {
    const at = wallInstant(today + days, end, timeZone, 'last');
    if (at > ms) return at;
  }
  return ms + 60_000; // unreachable for real zones; never loop
}

/**
 * Whether an instant falls inside a quiet-hours window `[start, end)` of local times; may wrap midnight.
 * Read as one stretch of time per night, so in the hour the clock repeats it stays quiet until the end's
 * last showing.
 */
export function isQuietAt(ms: number, timeZone: string, window: readonly [string, string] | null): boolean {
  if (!window) return false;
  const nightly = [{ start: minutesOf(window[0]), end: minutesOf(window[1]) }];
  return endOfWindowAt(ms, windowsAround(ms, timeZone, 1, 0, () => nightly)) !== null;
}
