import { DateTime } from 'luxon';

/**
 * Windows of local wall-clock time that repeat on calendar days (working hours, quiet hours), turned
 * into instants with Luxon. A window starts on a day at `start` minutes after midnight and ends at
 * `end`; an `end` at or before `start` means the next day's `end` (an overnight window), and 1440 is
 * the end of the day.
 *
 * Daylight-saving changes: a wall time the clock skips (spring forward) is the first instant after the
 * jump; a wall time the clock shows twice (fall back) is its first occurrence as a start and its last as
 * an end, so a window covers every instant whose clock time lies inside it.
 */
export interface DailyWindow {
  start: number;
  end: number;
}

/** A window resolved to instants: `[from, to)` in ms. */
export interface Interval {
  from: number;
  to: number;
}

const MINUTES_PER_DAY = 1440;
const DAY_MS = 86_400_000;

/**
 * The local calendar date of an instant, as a day number (days since 1970-01-01), so that the days
 * around it are plain integers and only wall times go through the zone. Remembers the last day per zone.
 */
export function localDate(ms: number, zone: string): number {
  const last = lastDay.get(zone);
  if (last && ms >= last.from && ms < last.to) return last.day;
  const local = DateTime.fromMillis(ms, { zone });
  const day = Math.round(DateTime.utc(local.year, local.month, local.day).toMillis() / DAY_MS);
  lastDay.set(zone, { day, from: wallInstant(day, 0, zone, 'first'), to: wallInstant(day + 1, 0, zone, 'first') });
  return day;
}

const lastDay = new Map<string, { day: number; from: number; to: number }>();

/** ISO weekday of a day number: 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

// Resolving a wall time costs Luxon tens of microseconds; routing asks for the same few days again and
// again, so answers are remembered (bounded: the map starts afresh when full).
const resolved = new Map<string, number>();
const MAX_REMEMBERED = 20_000;

/**
 * The instant a wall-clock time (`minutes` after midnight, up to 1440) is shown on a local date (a day
 * number). `which` picks the occurrence when the clock shows it twice.
 */
export function wallInstant(day: number, minutes: number, zone: string, which: 'first' | 'last'): number {
  const key = `${zone} ${day} ${minutes} ${which}`;
  let ms = resolved.get(key);
  if (ms === undefined) {
    ms = resolveWallTime(day, minutes, zone, which);
    if (resolved.size >= MAX_REMEMBERED) resolved.clear();
    resolved.set(key, ms);
  }
  return ms;
}

function resolveWallTime(day: number, minutes: number, zone: string, which: 'first' | 'last'): number {
  const date = DateTime.fromMillis(day * DAY_MS, { zone: 'utc' });
  if (!date.setZone(zone).isValid) throw new Error(`unknown time zone "${zone}"`);
  for (let skipped = 0; skipped <= MINUTES_PER_DAY; skipped++) {
    const wall = date.plus({ minutes: minutes + skipped });
    const dt = DateTime.fromObject({ year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute }, { zone });
    // Luxon moves a skipped wall time forward by the size of the jump; the first wall minute that exists
    // after it is the instant the clock jumped.
    if (dt.year !== wall.year || dt.month !== wall.month || dt.day !== wall.day || dt.hour !== wall.hour || dt.minute !== wall.minute) continue;
    const instants = dt.getPossibleOffsets().map((o) => o.toMillis());
    return which === 'first' ? Math.min(...instants) : Math.max(...instants);
  }
  throw new Error(`no instant shows ${date.toISODate()} +${minutes}min in ${zone}`); // no zone has skipped more than a day
}

/** The window starting on a local date (a day number), as instants; null when a clock change leaves nothing of it. */
export function windowOn(day: number, window: DailyWindow, zone: string): Interval | null {
  const from = wallInstant(day, window.start, zone, 'first');
  const to = wallInstant(window.end <= window.start ? day + 1 : day, window.end, zone, 'last');
  return to > from ? { from, to } : null;
}

/**
 * Every occurrence of the windows that starts on a local date from `daysBefore` days before the date
 * of `ms` to `daysAfter` days after it, in order of start. `onDay` says which windows a weekday has.
 */
export function windowsAround(
  ms: number,
  zone: string,
  daysBefore: number,
  daysAfter: number,
  onDay: (weekday: number) => readonly DailyWindow[],
): Interval[] {
  const today = localDate(ms, zone);
  const intervals: Interval[] = [];
  for (let day = today - daysBefore; day <= today + daysAfter; day++) {
    for (const window of onDay(weekdayOf(day))) {
      const interval = windowOn(day, window, zone);
      if (interval) intervals.push(interval);
    }
  }
  return intervals.sort((a, b) => a.from - b.from);
}

/** The end of the window occurrence containing `ms`, or null when none does. Overlapping windows chain. */
export function endOfWindowAt(ms: number, intervals: readonly Interval[]): number | null {
  let end: number | null = null;
  for (const interval of intervals) {
    const reaches = end ?? ms;
    if (interval.from <= reaches && interval.to > reaches) end = interval.to;
  }
  return end;
}

/** Minutes since local midnight for an `HH:MM` string (`24:00` is 1440). */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}
