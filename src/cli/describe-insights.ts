import { DateTime } from 'luxon';
import type { InsightFigures, InsightsView } from '../wire/insight-schemas.js';

/** The insights as people read them in a terminal: times in words, shares as percentages, "—" for none. */

const NONE = '—';

/**
 * A time in seconds from the API, for a reader: "<1s", "42s", "4m 10s", "2h 5m", "3d 4h". Seconds are
 * rounded to the second (minutes from an hour on, hours from a day on); the figure itself is only
 * within 10 % (fixed buckets), so nothing finer would mean anything.
 */
export function durationText(seconds: number | null): string {
  if (seconds === null) return NONE;
  if (seconds < 1) return '<1s';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return pair(Math.floor(s / 60), 'm', s % 60, 's');
  const minutes = Math.round(s / 60);
  if (minutes < 24 * 60) return pair(Math.floor(minutes / 60), 'h', minutes % 60, 'm');
  const hours = Math.round(s / 3600);
  return pair(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

const pair = (big: number, bigUnit: string, small: number, smallUnit: string) => (small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit} ${small}${smallUnit}`);

/** A share (0 to 1) as a percentage to one decimal: "50%", "33.3%"; "—" when there was nothing to divide by. */
export function shareText(share: number | null): string {
  if (share === null) return NONE;
  return `${Number((share * 100).toFixed(1))}%`;
}

/** "from 2026-11-23 00:00 to 2026-11-30 00:00 (Europe/Berlin)": the window in the organisation's time zone. */
export function windowLine(view: Pick<InsightsView, 'from' | 'to' | 'time_zone'>): string {
  const local = (iso: string) => DateTime.fromISO(iso, { zone: view.time_zone }).toFormat('yyyy-LL-dd HH:mm');
  return `Insights from ${local(view.from)} to ${local(view.to)} (${view.time_zone})`;
}

/** The table's columns after the group's key, one per figure. */
export const FIGURE_COLUMNS = [
  'SUBMITTED', 'ACCEPTED', 'REJECTED', 'FAILED', 'OPEN', 'LIBRARY', 'ASKS', 'ASK-SHARE', 'ANSWERS',
  'ANSWER-P50', 'ANSWER-P90', 'DECIDE-P50', 'DECIDE-P90', 'ESCALATED', 'SENT-BACK', 'SKIPS', 'MUTES', 'HOLDS',
] as const;

/** One table row of figures, in the order of FIGURE_COLUMNS. */
export function figureCells(f: InsightFigures): string[] {
  const r = f.requests;
  return [
    ...[r.submitted, r.accepted, r.rejected, r.failed, r.open, f.answered_from_library, f.asks].map(String),
    shareText(f.share_of_asks),
    String(f.answers),
    durationText(f.time_to_first_answer.p50_s),
    durationText(f.time_to_first_answer.p90_s),
    durationText(f.proposal_to_decision.p50_s),
    durationText(f.proposal_to_decision.p90_s),
    shareText(f.share_escalated),
    shareText(f.share_sent_back),
    ...[f.skips, f.mutes, f.cap_holds].map(String),
  ];
}

/** "no_expert_found 1, cancelled 1": the reasons requests failed, those that happened only; null when none failed. */
export function failedReasons(f: InsightFigures): string | null {
  const reasons = Object.entries(f.requests.failed_by_reason).filter(([, n]) => n > 0);
  return reasons.length === 0 ? null : reasons.map(([reason, n]) => `${reason} ${n}`).join(', ');
}

const times = (t: InsightFigures['time_to_first_answer'], what: string) =>
  t.count === 0 ? NONE : `p50 ${durationText(t.p50_s)}, p90 ${durationText(t.p90_s)} (${t.count} ${what})`;

const of = (share: number | null, part: number, whole: number, what: string) => (whole === 0 ? NONE : `${shareText(share)} (${part} of ${whole} ${what})`);

/** The total as figure/value pairs: what `insights` prints without `--by`. */
export function figureList(f: InsightFigures): Array<[string, string]> {
  const r = f.requests;
  const failed = failedReasons(f);
  return [
    ['Requests submitted', String(r.submitted)],
    ['  accepted', String(r.accepted)],
    ['  rejected', String(r.rejected)],
    ['  failed', failed ? `${r.failed} (${failed})` : String(r.failed)],
    ['  open', String(r.open)],
    ['Answered from the library', `${f.answered_from_library} (asks spared)`],
    ['Asks sent', String(f.asks)],
    ['Answers', String(f.answers)],
    ['Time to first answer', times(f.time_to_first_answer, f.time_to_first_answer.count === 1 ? 'answer' : 'answers')],
    ['Proposal to decision', times(f.proposal_to_decision, f.proposal_to_decision.count === 1 ? 'decision' : 'decisions')],
    ['Escalated', of(f.share_escalated, f.escalated_requests, f.asked_requests, 'asked requests')],
    ['Sent back', of(f.share_sent_back, f.sent_back, f.proposals, 'proposals')],
    ['Skips', String(f.skips)],
    ['Mutes', String(f.mutes)],
    ['Cap holds', String(f.cap_holds)],
  ];
}
