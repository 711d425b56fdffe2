import type { Presence } from '../transport.js';

/** The fields of `dnd.info` that matter (times in seconds since the epoch). */
export interface DndInfo {
  dnd_enabled?: boolean;
  next_dnd_start_ts?: number;
  next_dnd_end_ts?: number;
  snooze_enabled?: boolean;
  snooze_endtime?: number;
}

/** The fields of `users.profile.get`'s profile that matter (`status_expiration`: seconds, 0 = none). */
export interface StatusProfile {
  status_text?: string;
  status_emoji?: string;
  status_expiration?: number;
}

/** `chat.away_status_emoji` and `chat.away_status_pattern` (read case-insensitively). */
export interface AwayStatusRules {
  emoji: readonly string[];
  pattern: RegExp;
}

/**
 * What Slack's answers say at `now`: in do-not-disturb (its scheduled window, or snoozed) until it
 * ends, and away until the status expires when the status shows one of the away emoji or its text
 * matches the pattern. A status with no expiration says nothing about when the expert is back, so it
 * is not read as away: an expert who forgets to clear it would never be asked again.
 */
export function readSlackStatus(dnd: DndInfo, profile: StatusProfile, now: number, rules: AwayStatusRules): Presence {
  const ends: number[] = [];
  const start = (dnd.next_dnd_start_ts ?? 0) * 1000;
  const end = (dnd.next_dnd_end_ts ?? 0) * 1000;
  if (dnd.dnd_enabled && start <= now && now < end) ends.push(end);
  const snoozeEnd = (dnd.snooze_endtime ?? 0) * 1000;
  if (dnd.snooze_enabled && now < snoozeEnd) ends.push(snoozeEnd);

  const expires = (profile.status_expiration ?? 0) * 1000;
  const emoji = profile.status_emoji ?? '';
  const awayStatus = (emoji !== '' && rules.emoji.includes(emoji)) || rules.pattern.test(profile.status_text ?? '');
  return { dndUntil: ends.length > 0 ? Math.max(...ends) : null, awayUntil: awayStatus && expires > now ? expires : null };
}
