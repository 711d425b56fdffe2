/**
 * Rollups of what the service did, per hour × topic × expert × consumer, kept in the transaction of
 * each event they count so a window of any length is read from them alone (`GET /insights`). The
 * rows of expert '' count everything; the rows of an expert count what concerns them: the requests
 * they were asked on (at the hour of submission), and their own asks, replies and proposals. The same
 * counts are also kept per day and per week of the organisation (of everything, per topic, consumer
 * and expert), so a window of years is read from a few hundred rows.
 */

/** The counted columns of a rollup row. */
export const INSIGHT_COUNTS = [
  'requests',
  'accepted',
  'rejected',
  'failed_timeout',
  'failed_no_expert_found',
  'failed_expert_declined',
  'failed_rate_limited',
  'failed_cancelled',
  'failed_error',
  'asked_requests',
  'escalated_requests',
  'library_answers',
  'asks',
  'skips',
  'mutes',
  'cap_holds',
  'answers',
  'proposals',
  'sent_back',
] as const;

export type InsightCount = (typeof INSIGHT_COUNTS)[number];
export type InsightCounts = Record<InsightCount, number>;

/** The two times kept as fixed-bucket histograms (`core/insight-buckets.ts`). */
export type InsightTime = 'answer' | 'decision';

/** Where a count goes: the hour (its start, epoch ms), and the request's topic and consumer. */
export interface InsightKey {
  hour: number;
  topic: string;
  consumer: string;
}

/**
 * Which rows a read sums: a window of hours [from, to), the rows of one expert ('' for everything) or
 * of every expert (null), narrowed to a topic or consumer, and grouped by `by` (null: one group).
 */
export interface InsightQuery {
  from: number;
  to: number;
  expert: string | null;
  topic?: string | undefined;
  consumer?: string | undefined;
  by: 'topic' | 'expert' | 'consumer' | 'period' | null;
  /** With `by: 'period'`: the periods' starts (epoch ms, ascending); each row goes to the last start at or before its hour, and its group's key is that start. */
  periods?: readonly number[] | undefined;
  /** With `by: 'period'`: whether the periods are the organisation's days or weeks. */
  periodUnit?: 'day' | 'week' | undefined;
  /** The organisation's time zone: whole days and weeks of the window are read from their rows when the rollups are kept in it. */
  zone?: string | undefined;
}

/** Sums of one group (`key`: the topic, expert, consumer, or the period's start as a string; '' for one group). */
export interface InsightGroupCounts {
  key: string;
  counts: InsightCounts;
}

export interface InsightTimeCount {
  key: string;
  metric: InsightTime;
  bucket: number;
  n: number;
}

export interface InsightRollup {
  counts: InsightGroupCounts[];
  times: InsightTimeCount[];
}

export interface InsightReads {
  /** The rollups' sums for a query: a read of rollup rows only, never of requests. */
  read(query: InsightQuery): Promise<InsightRollup>;
}

export interface InsightRepository extends InsightReads {
  /** Adds `counts` to the row of each of `experts` ('' for everything) at `key`. */
  add(key: InsightKey, experts: readonly string[], counts: Partial<InsightCounts>): Promise<void>;
  /** Counts one time (seconds) in its bucket, in the row of each of `experts` at `key`. */
  addTime(key: InsightKey, experts: readonly string[], metric: InsightTime, seconds: number): Promise<void>;
  /** Adds `counts` at `key` to the rows of '' and of every expert sent an ask on the request. */
  addToRequest(requestId: string, key: InsightKey, counts: Partial<InsightCounts>): Promise<void>;
  /**
   * The request reaches `escalated`: counted as escalated (rows of '' and of its asked experts) unless
   * it was before (an `escalated` entry in its audit trail, which the caller writes after this).
   */
  addEscalated(requestId: string, key: InsightKey): Promise<void>;
  /**
   * An ask `askId` of `expertId` was sent on an existing request (`key`: its submission hour): the
   * request counts for that expert if they had no ask sent on it before (escalated too if it was),
   * and as asked if it had no ask sent at all.
   */
  addAsked(requestId: string, askId: string, expertId: string, key: InsightKey): Promise<void>;
}
