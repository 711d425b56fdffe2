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

/** The local calendar date of an instant, as a midnight in UTC (pure calendar arithmetic from then on). */
export function localDate(ms: number, zone: string): DateTime {
  const local = DateTime.fromMillis(ms, { zone });
  return DateTime.utc(local.year, local.month, local.day);
}

/**
 * The instant a wall-clock time (`minutes` after midnight, up to 1440) is shown on a local date.
 * `which` picks the occurrence when the clock shows it twice.
 */
export function wallInstant(date: DateTime, minutes: number, zone: string, which: 'first' | 'last'): number {
  for (let skipped = 0; skipped <= MINUTES_PER_DAY; skipped++) {
    const wall = date.plus({ minutes: minutes + skipped });
    const dt = DateTime.fromObject({ year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute }, { zone });
    // Luxon moves a skipped wall time forward by the size of the jump; the first wall minute that exists
    // after it is the instant the clock jumped.
    if (dt.year !== wall.year || dt.month !== wall.month || dt.day !== wall.day || dt.hour !== wall.hour || dt.minute !== wall.minute) continue;
    const instants = dt.getPossibleOffsets().map((o) => o.toMillis());
    return which === 'first' ? Math.min(...instants) : Math.max(...instants);
  }
  throw new Error(`no instant shows ${date.toISODate()} +${minutes}min in ${zone}`); // no real zone skips a whole day twice
}

/** The window starting on a local date, as instants; null when a clock change leaves nothing of it. */
export function windowOn(date: DateTime, window: DailyWindow, zone: string): Interval | null {
  const from = wallInstant(date, window.start, zone, 'first');
  const endDate = window.end <= window.start ? date.plus({ days: 1 }) : date;
  const to = wallInstant(endDate, window.end, zone, 'last');
  return to > from ? { from, to } : null;
}

/**
 * Every occurrence of the windows that starts on a local date from `daysBefore` days before the date
 * of `ms` to `daysAfter` days after it, in order of start. `onDay` says which windows a date has.
 */
export function windowsAround(
  ms: number,
  zone: string,
  daysBefore: number,
  daysAfter: number,
  onDay: (date: DateTime) => readonly DailyWindow[],
): Interval[] {
  const today = localDate(ms, zone);
  const intervals: Interval[] = [];
  for (let d = -daysBefore; d <= daysAfter; d++) {
    const date = today.plus({ days: d });
    for (const window of onDay(date)) {
      const interval = windowOn(date, window, zone);
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
