/**
 * Times as people read them in messages: "14:00 UTC" today, "Tue 25 Nov 11:37 UTC" on any other day,
 * so "gives up at 11:37" never hides that it means tomorrow. The zone defaults to UTC (a client that
 * does not know the server's zone); dates are the calendar days of that zone.
 */
export function timeText(at: number, now: number, timeZone = 'UTC'): string {
  const zone = timeZone === 'UTC' || timeZone === 'Etc/UTC' ? 'UTC' : timeZone;
  const clock = format(at, zone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const sameDay = format(at, zone, DAY) === format(now, zone, DAY);
  return sameDay ? `${clock} ${zone}` : `${format(at, zone, { weekday: 'short', day: 'numeric', month: 'short' })} ${clock} ${zone}`;
}

/** How far away an instant is, roughly: "in 5 min", "in 3 h", "in 2 days"; "3 min ago" for the past. */
export function relativeText(at: number, now: number): string {
  const ms = Math.abs(at - now);
  const amount =
    ms < 60_000 ? null : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : ms < 48 * 3_600_000 ? `${round1(ms / 3_600_000)} h` : `${Math.round(ms / 86_400_000)} days`;
  if (amount === null) return at >= now ? 'in under a minute' : 'just now';
  return at >= now ? `in ${amount}` : `${amount} ago`;
}

const DAY: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit' };
const round1 = (n: number) => (n < 10 ? Math.round(n * 10) / 10 : Math.round(n));
const formats = new Map<string, Intl.DateTimeFormat>();

function format(at: number, timeZone: string, options: Intl.DateTimeFormatOptions): string {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat('en-GB', { timeZone, ...options })));
  return f.format(at).replace(',', '');
}
