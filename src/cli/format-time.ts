import { localTime } from '../core/local-time.js';

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
 * A time as a reader wants it in a terminal: "14:00 UTC today", else with its date
 * ("Wed 25 Nov 11:37 UTC"), and with the year when it is not this year. `timeZone` is the
 * organisation's (`org.timezone`); "today" is that zone's day. A value that is not a time is shown as
 * given.
 */
export function formatWhen(iso: string, now: number, timeZone = 'UTC'): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const at = localTime(ms, timeZone);
  const today = localTime(now, timeZone);
  const clock = `${pad(at.hour)}:${pad(at.minute)} ${zoneLabel(ms, timeZone)}`;
  if (at.year === today.year && at.month === today.month && at.day === today.day) return `${clock} today`;
  const weekday = WEEKDAYS[new Date(Date.UTC(at.year, at.month - 1, at.day)).getUTCDay()];
  return `${weekday} ${at.day} ${MONTHS[at.month - 1]}${at.year === today.year ? '' : ` ${at.year}`} ${clock}`;
}
