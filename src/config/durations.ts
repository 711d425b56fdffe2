import parseShort from 'parse-duration';
import { parse as parseIso, serialize as serializeIso } from 'tinyduration';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const SECOND = 1_000;

/**
 * The longest duration expertq accepts anywhere (escalation, give-up, dedup windows): one year. Beyond
 * it a deadline is no longer a meaningful wait, and far beyond it the arithmetic leaves the range of a
 * JavaScript date or an SQLite integer.
 */
export const MAX_DURATION_MS = 365 * DAY;

/** Why a duration text is not acceptable (not a duration, or out of range), or null when it is. */
export function durationProblem(text: string): string | null {
  const ms = parseDuration(text);
  if (ms === null && spanOf(text) === 0) return `"${text}" must be longer than 0`;
  if (ms === null) return `"${text}" is not a duration; write it like 90s, 30m, 2h, 1h30m, 1d or PT2H`;
  if (ms > MAX_DURATION_MS) return `"${text}" is longer than the maximum of 365 days`;
  return null;
}

/** The YAML short form: one or more `<number><unit>` runs, e.g. `90s`, `2h`, `1h30m`, `1d`. */
const SHORT_FORM = /^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/;

/**
 * Parses a duration in either the short YAML form (`2h`, `1h30m`) or ISO-8601 (`PT2H`, `P1D`) into
 * milliseconds. Months and years are refused: their length depends on the calendar, and every
 * duration in expertq is a fixed span of time. Returns null when the text is not a duration.
 */
export function parseDuration(text: string): number | null {
  const ms = spanOf(text);
  return ms !== null && ms > 0 ? ms : null;
}

/** The span a duration text writes, zero included (`0s`, `PT0S`); null when it is not a duration. */
function spanOf(text: string): number | null {
  const value = text.trim();
  if (value.length === 0) return null;
  if (/^P/i.test(value)) return parseIsoDuration(value.toUpperCase());
  if (!SHORT_FORM.test(value)) return null;
  const ms = parseShort(value);
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? Math.round(ms) : null;
}

function parseIsoDuration(value: string): number | null {
  try {
    const d = parseIso(value);
    if (d.negative || d.years || d.months) return null;
    const ms =
      (d.weeks ?? 0) * 7 * DAY +
      (d.days ?? 0) * DAY +
      (d.hours ?? 0) * HOUR +
      (d.minutes ?? 0) * MINUTE +
      (d.seconds ?? 0) * SECOND;
    return ms >= 0 ? Math.round(ms) : null;
  } catch {
    return null;
  }
}

/** Formats milliseconds as ISO-8601 for the wire: whole days as `P1D`, otherwise `PT2H30M`. */
export function formatDuration(ms: number): string {
  if (ms % DAY === 0) return serializeIso({ days: ms / DAY });
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  const seconds = (ms % MINUTE) / SECOND;
  return serializeIso({ hours, minutes, seconds });
}

/** Formats milliseconds in the short YAML form people write (`1d`, `2h`, `1h30m`, `90s`), for messages. */
export function formatShortDuration(ms: number): string {
  const parts: Array<[number, string]> = [
    [Math.floor(ms / DAY), 'd'],
    [Math.floor((ms % DAY) / HOUR), 'h'],
    [Math.floor((ms % HOUR) / MINUTE), 'm'],
    [Math.round((ms % MINUTE) / SECOND), 's'],
  ];
  const text = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n}${unit}`).join('');
  return text === '' ? '0s' : text;
}
