import { ORG_TZ, QUIET, simExpert, zoneOf } from './sim-experts.js';

/**
 * The checker's own statement of when an expert may be asked, written apart from the service's
 * availability code (src/core/availability.ts) so a mistake there is not repeated here: the local
 * weekday and minute come straight from `Intl`, and the simulation's ranges never cross midnight.
 */
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const formats = new Map<string, Intl.DateTimeFormat>();

/** ISO weekday (1 = Monday) and minute of the day at `ms` on the wall clock of `zone`. */
export function wallClock(ms: number, zone: string): { weekday: number; minute: number } {
  let f = formats.get(zone);
  if (!f) formats.set(zone, (f = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })));
  const parts = Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
  return { weekday: WEEKDAYS.indexOf(parts.weekday!) + 1, minute: (Number(parts.hour) % 24) * 60 + Number(parts.minute) };
}

/** Whether `ms` lies inside the expert's working hours in their own zone (no hours: always). */
export function inWorkingHours(expertId: string, ms: number): boolean {
  const hours = simExpert(expertId).hours;
  if (hours === null) return true;
  const { weekday, minute } = wallClock(ms, zoneOf(expertId));
  return hours.ranges.some((r) => r.days.includes(weekday) && r.from <= minute && minute < r.to);
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** Whether `ms` lies inside the organisation's quiet hours (a window that wraps midnight). */
export function inQuietHours(ms: number): boolean {
  const { minute } = wallClock(ms, ORG_TZ);
  const [from, to] = QUIET.map(minutesOf) as [number, number];
  return from <= to ? from <= minute && minute < to : minute >= from || minute < to;
}

/**
 * The away spells the simulation itself set and ended, per expert: `[from, to)` where `to` is the
 * `until` asked for, cut short by an early `back` or by a new spell replacing it.
 */
export class AwayLog {
  private readonly spells = new Map<string, Array<{ from: number; to: number }>>();

  set(expertId: string, from: number, until: number): void {
    this.end(expertId, from);
    const list = this.spells.get(expertId) ?? [];
    list.push({ from, to: until });
    this.spells.set(expertId, list);
  }

  /** Ends the spell in force at `at`, if any. */
  end(expertId: string, at: number): void {
    const last = this.spells.get(expertId)?.at(-1);
    if (last && last.from <= at && at < last.to) last.to = at;
  }

  /** The spell in force at `ms`, if any. */
  at(expertId: string, ms: number): { from: number; to: number } | undefined {
    return this.spells.get(expertId)?.find((s) => s.from <= ms && ms < s.to);
  }

  count(): number {
    return [...this.spells.values()].reduce((n, list) => n + list.length, 0);
  }
}
