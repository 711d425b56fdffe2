import { endOfWindowAt, localDate, minutesOf, wallInstant, windowsAround, type DailyWindow } from './daily-windows.js';
import { windowsOnWeekday, type WorkingHours } from './working-hours.js';

/** What keeps an expert from being asked, in the order `why` reports them when several apply. */
export const BLOCK_REASONS = ['away', 'dnd', 'working_hours', 'quiet_hours'] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

export type Availability = { available: true } | { available: false; why: BlockReason; until: number | null };

/** Everything that decides when one expert may be asked. Instants are ms since the epoch. */
export interface AvailabilityRules {
  /** The expert's IANA time zone, in which `workingHours` are read. */
  timeZone: string;
  /** null: any time. */
  workingHours: WorkingHours | null;
  /** The organisation's IANA time zone, in which `quietHours` are read. */
  orgTimeZone: string;
  /** `[start, end)` local `HH:MM` times, wrapping midnight when end < start; null: none. */
  quietHours: readonly [string, string] | null;
  away?: { until: number } | null;
  dnd?: { until: number } | null;
}

/**
 * How far past the end of away and do-not-disturb the search for the next available instant looks.
 * Working and quiet hours repeat every week, so two weeks cover every pattern plus a clock change.
 */
export const SEARCH_HORIZON_MS = 14 * 86_400_000;

/**
 * Whether the expert can be asked at `now`, and if not, why and from when. `why` is the first of
 * `BLOCK_REASONS` that blocks at `now`; `until` is the first instant at which nothing blocks, all rules
 * taken together (working hours may end as quiet hours begin), or null when there is none within
 * `SEARCH_HORIZON_MS` after away and do-not-disturb end (working hours that lie wholly inside quiet hours).
 */
export function availability(now: number, rules: AvailabilityRules): Availability {
  const blocks = blockersOf(rules);
  const why = BLOCK_REASONS.find((reason) => blocks[reason](now) !== null);
  if (why === undefined) return { available: true };
  const horizon = Math.max(now, rules.away?.until ?? now, rules.dnd?.until ?? now) + SEARCH_HORIZON_MS;
  let t = now;
  while (t <= horizon) {
    // Nothing can be asked before every rule blocking at t has ended: jump to the last of those ends.
    const ends = BLOCK_REASONS.map((reason) => blocks[reason](t)).filter((end): end is number => end !== null);
    if (ends.length === 0) return { available: false, why, until: t };
    t = Math.max(...ends);
  }
  return { available: false, why, until: null };
}

/** Per rule: the instant it stops blocking, if it blocks at `t` (always after `t`), else null. */
type Blocker = (t: number) => number | null;

function blockersOf(rules: AvailabilityRules): Record<BlockReason, Blocker> {
  return {
    away: (t) => (rules.away && t < rules.away.until ? rules.away.until : null),
    dnd: (t) => (rules.dnd && t < rules.dnd.until ? rules.dnd.until : null),
    working_hours: rules.workingHours ? workingHoursBlocker(rules.workingHours, rules.timeZone) : () => null,
    quiet_hours: rules.quietHours ? quietHoursBlocker(rules.quietHours, rules.orgTimeZone) : () => null,
  };
}

function workingHoursBlocker(hours: WorkingHours, zone: string): Blocker {
  const onDay = (weekday: number) => windowsOnWeekday(hours, weekday);
  return (t) => {
    // An overnight range started yesterday may still run. Most waits end by tomorrow; else look a week on.
    for (const daysAfter of [1, 8]) {
      const intervals = windowsAround(t, zone, 1, daysAfter, onDay);
      if (endOfWindowAt(t, intervals) !== null) return null;
      const next = intervals.find((i) => i.from > t);
      if (next) return next.from;
    }
    // Clock changes can swallow a short range; then look again from the end of the days searched.
    return wallInstant(localDate(t, zone) + 9, 0, zone, 'first');
  };
}

function quietHoursBlocker(window: readonly [string, string], zone: string): Blocker {
  const daily: DailyWindow[] = [{ start: minutesOf(window[0]), end: minutesOf(window[1]) }];
  return (t) => endOfWindowAt(t, windowsAround(t, zone, 1, 0, () => daily));
}
