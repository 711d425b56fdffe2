/**
 * Times (submission to first answer, proposal to decision) are kept as counts in fixed buckets, so a
 * percentile over any window is read from a handful of numbers whatever the history. Bucket 0 holds
 * times under one second; bucket k ≥ 1 holds [1.2^(k-1), 1.2^k) seconds, up to bucket 101, which
 * reaches past three years; the last bucket takes anything longer. A percentile is reported as its
 * bucket's geometric middle (lower bound × √1.2), within 9.6 % of the true value for any time of a
 * second or more.
 */
export const BUCKET_RATIO = 1.2;
export const LAST_BUCKET = 102;

/** The bucket of a time in seconds. */
export function bucketOf(seconds: number): number {
  if (!(seconds >= 1)) return 0;
  return Math.min(LAST_BUCKET, 1 + Math.floor(Math.log(seconds) / Math.log(BUCKET_RATIO)));
}

/** The bounds of a bucket, in seconds: [low, high). */
export function bucketBounds(bucket: number): [number, number] {
  if (bucket <= 0) return [0, 1];
  return [BUCKET_RATIO ** (bucket - 1), bucket >= LAST_BUCKET ? Infinity : BUCKET_RATIO ** bucket];
}

/** The value a bucket stands for: its geometric middle (half a second for bucket 0), to four significant digits. */
export function bucketValue(bucket: number): number {
  const value = bucket <= 0 ? 0.5 : BUCKET_RATIO ** (bucket - 1) * Math.sqrt(BUCKET_RATIO);
  return Number(value.toPrecision(4));
}

/**
 * The `p` quantile (0 < p ≤ 1) of the times counted in `counts` (bucket → count), nearest rank: the
 * bucket holding the ⌈p·n⌉-th smallest time. Null when nothing was counted.
 */
export function percentile(counts: ReadonlyMap<number, number>, p: number): number | null {
  let total = 0;
  for (const n of counts.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= rank) return bucketValue(bucket);
  }
  return null;
}

/** The start of the hour holding `ms` (epoch milliseconds): rollups are kept per hour. */
export const hourOf = (ms: number): number => Math.floor(ms / 3_600_000) * 3_600_000;
