import { DateTime } from 'luxon';
import { MAX_DURATION_MS, parseDuration } from '../config/durations.js';

/** `until` read into an instant, or why it cannot be used. */
export type AwayUntil = { ok: true; at: number } | { ok: false; problem: string };

/**
 * When an away spell ends, from what a person typed: a duration from `now` (`3d`, `2w`, `PT4H`) or an
 * ISO date or time. A date or time without an offset is read in `zone` (the expert's own), so
 * `2026-12-01` means the start of that day where the expert lives. It must lie after `now` and within
 * the longest duration expertq accepts (a year).
 */
export function awayUntil(text: string, now: number, zone: string): AwayUntil {
  const value = text.trim();
  const span = parseDuration(value);
  const at = span !== null ? now + span : DateTime.fromISO(value, { zone, setZone: false });
  const ms = typeof at === 'number' ? at : at.isValid ? at.toMillis() : null;
  if (ms === null) return { ok: false, problem: `"${text}" is neither a date or time (2026-12-01, 2026-12-01T09:00Z) nor a duration (3d, 1w, 4h)` };
  if (ms <= now) return { ok: false, problem: `"${text}" is not in the future` };
  if (ms - now > MAX_DURATION_MS) return { ok: false, problem: `"${text}" is more than 365 days away` };
  return { ok: true, at: ms };
}
