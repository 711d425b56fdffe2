import { percentile } from '../../core/insight-buckets.js';
import { INSIGHT_COUNTS, type InsightCounts, type InsightTime } from '../../store/store.js';
import type { InsightFigures } from '../../wire/insight-schemas.js';

/** A group's sums: its counts and its times' buckets, merged from any number of rollup rows. */
export interface Tally {
  counts: InsightCounts;
  times: Record<InsightTime, Map<number, number>>;
}

export function emptyTally(): Tally {
  return { counts: Object.fromEntries(INSIGHT_COUNTS.map((c) => [c, 0])) as InsightCounts, times: { answer: new Map(), decision: new Map() } };
}

export function addCounts(into: Tally, counts: InsightCounts): void {
  for (const c of INSIGHT_COUNTS) into.counts[c] += counts[c];
}

export function addBucket(into: Tally, metric: InsightTime, bucket: number, n: number): void {
  const times = into.times[metric];
  times.set(bucket, (times.get(bucket) ?? 0) + n);
}

/** Merges tallies: sums of counts, and of each bucket (a percentile of the merge is as precise as of each). */
export function mergeTallies(tallies: Iterable<Tally>): Tally {
  const total = emptyTally();
  for (const t of tallies) {
    addCounts(total, t.counts);
    for (const metric of ['answer', 'decision'] as const) for (const [bucket, n] of t.times[metric]) addBucket(total, metric, bucket, n);
  }
  return total;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

function time(buckets: Map<number, number>): InsightFigures['time_to_first_answer'] {
  let count = 0;
  for (const n of buckets.values()) count += n;
  return { count, p50_s: percentile(buckets, 0.5), p90_s: percentile(buckets, 0.9) };
}

/** The figures of a tally; `allAsks`: the asks of the whole window, for this group's share. */
export function figuresOf(t: Tally, allAsks: number): InsightFigures {
  const c = t.counts;
  const failed = c.failed_timeout + c.failed_no_expert_found + c.failed_expert_declined + c.failed_rate_limited + c.failed_cancelled + c.failed_error;
  return {
    requests: {
      submitted: c.requests,
      accepted: c.accepted,
      rejected: c.rejected,
      failed,
      failed_by_reason: {
        timeout: c.failed_timeout,
        no_expert_found: c.failed_no_expert_found,
        expert_declined: c.failed_expert_declined,
        rate_limited: c.failed_rate_limited,
        cancelled: c.failed_cancelled,
        error: c.failed_error,
      },
      open: c.requests - c.accepted - c.rejected - failed,
    },
    answered_from_library: c.library_answers,
    asks_spared: c.library_answers,
    time_to_first_answer: time(t.times.answer),
    proposal_to_decision: time(t.times.decision),
    asked_requests: c.asked_requests,
    escalated_requests: c.escalated_requests,
    share_escalated: ratio(c.escalated_requests, c.asked_requests),
    proposals: c.proposals,
    sent_back: c.sent_back,
    share_sent_back: ratio(c.sent_back, c.proposals),
    asks: c.asks,
    share_of_asks: ratio(c.asks, allAsks),
    answers: c.answers,
    skips: c.skips,
    mutes: c.mutes,
    cap_holds: c.cap_holds,
  };
}
