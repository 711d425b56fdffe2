/** How the Insights page writes its figures. */

/** A time in seconds in words a person reads at a glance: "45 s", "32 min", "5.2 h", "3.1 days"; null is "—". */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${round1(seconds / 3600)} h`;
  return `${round1(seconds / 86_400)} days`;
}

/** A share (0 to 1) as a percentage with at most one decimal: "25%", "33.3%"; null is "—". */
export function percent(share: number | null): string {
  return share === null ? '—' : `${round1(share * 100)}%`;
}

/** `part / whole`, or null when there is nothing to divide by. */
export function ratio(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

const round1 = (n: number) => String(Math.round(n * 10) / 10);

/** The unit a chart of times reads best in, for the longest time it shows. */
export function timeUnit(maxSeconds: number): { label: string; seconds: number } {
  if (maxSeconds < 2 * 3600) return { label: 'minutes', seconds: 60 };
  if (maxSeconds < 72 * 3600) return { label: 'hours', seconds: 3600 };
  return { label: 'days', seconds: 86_400 };
}

/** A period key (its first day, YYYY-MM-DD) as a short label: "Nov 16". */
export function periodLabel(key: string, locale?: string): string {
  return new Date(`${key}T00:00:00Z`).toLocaleDateString(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** A window's day as the page writes it: "Nov 16, 2026", in the organisation's time zone. */
export function dayText(iso: string, zone: string, locale?: string): string {
  return new Date(iso).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: zone });
}
