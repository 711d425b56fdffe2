import { localTime } from './local-time.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The zone's short name for a reader ("UTC", "CET", "GMT+5:30"), at that instant (DST changes it). */
function zoneLabel(ms: number, timeZone: string): string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 'UTC';
  const part = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'short' }).formatToParts(ms).find((p) => p.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * An instant's wall-clock parts in `timeZone`: "14:00", its date ("Wed 25 Nov", with the year when it
 * is not `now`'s year) and whether it falls on `now`'s day there.
 */
export function localDayParts(ms: number, now: number, timeZone: string): { clock: string; date: string; today: boolean } {
  const at = localTime(ms, timeZone);
  const current = localTime(now, timeZone);
  const weekday = WEEKDAYS[new Date(Date.UTC(at.year, at.month - 1, at.day)).getUTCDay()];
  return {
    clock: `${pad(at.hour)}:${pad(at.minute)}`,
    date: `${weekday} ${at.day} ${MONTHS[at.month - 1]}${at.year === current.year ? '' : ` ${at.year}`}`,
    today: at.year === current.year && at.month === current.month && at.day === current.day,
  };
}

/**
 * A time as people read it in messages: "14:00 UTC today", else with its date
 * ("Wed 25 Nov 11:37 UTC"), and with the year when it is not this year, so "gives up at 11:37" never
 * hides that it means tomorrow. `timeZone` is the organisation's (`org.timezone`), or UTC for a client
 * that does not know it; "today" is that zone's day.
 */
export function timeText(ms: number, now: number, timeZone = 'UTC'): string {
  const { clock, date, today } = localDayParts(ms, now, timeZone);
  const labelled = `${clock} ${zoneLabel(ms, timeZone)}`;
  return today ? `${labelled} today` : `${date} ${labelled}`;
}

/** `timeText` of an ISO-8601 string from the API; a value that is not a time is shown as given. */
export function formatWhen(iso: string, now: number, timeZone = 'UTC'): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : timeText(ms, now, timeZone);
}

/** How far away an instant is, roughly: "in 5 min", "in 3 h", "in 2 days"; "3 min ago" for the past. */
export function relativeText(at: number, now: number): string {
  const ms = Math.abs(at - now);
  const amount =
    ms < 60_000 ? null : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : ms < 48 * 3_600_000 ? `${round1(ms / 3_600_000)} h` : `${Math.round(ms / 86_400_000)} days`;
  if (amount === null) return at >= now ? 'in under a minute' : 'just now';
  return at >= now ? `in ${amount}` : `${amount} ago`;
}

const round1 = (n: number) => (n < 10 ? Math.round(n * 10) / 10 : Math.round(n));
