/** Webhook retry schedule: after these, a delivery is `dead`. */
export const WEBHOOK_BACKOFF_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
] as const;

/** The longest Retry-After honoured; a longer one is clamped so a typo cannot park a delivery for a year. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * When to try again after failed attempt number `attempts` (1-based), or null when the schedule is
 * exhausted. ±20% jitter spreads retries from many deliveries that failed together.
 */
export function nextRetryDelay(attempts: number, random: () => number = Math.random): number | null {
  const base = WEBHOOK_BACKOFF_MS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Parses Retry-After (delta seconds or an HTTP date) into a delay in ms from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const seconds = Number(value);
  const delay = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(delay) || delay < 0) return null;
  return Math.min(delay, MAX_RETRY_AFTER_MS);
}
