import { periodStart, type PeriodUnit } from '../../core/insight-periods.js';
import { type InsightCount, type InsightCounts, INSIGHT_COUNTS, type InsightKey, type InsightTime } from '../insight-repository.js';

/**
 * Rollup counts, gathered and merged. A transaction gathers what it counts here and, just before its
 * commit, appends it merged to the rollups' journal as one row (`journal`): the cheapest write there
 * is, and one no other transaction waits on. Folding the journal (`addJournal`, then `take`) adds it to
 * the hour rows and to the rows of the organisation's days and weeks: of everything, per topic and per
 * consumer from the rows of everything, and per expert. A savepoint that rolls back drops what was
 * counted inside it (`mark`, `rollBack`).
 */

/** One hour row's key: hour start, topic, expert ('' for everything), consumer. */
export interface HourKey {
  hour: number;
  topic: string;
  expert: string;
  consumer: string;
}

/** A day or week row's key: what it counts (`dim`, `value`: '' for everything) and where it starts. */
export interface PeriodKey {
  unit: PeriodUnit;
  dim: 'all' | 'topic' | 'consumer' | 'expert';
  value: string;
  start: number;
}

export interface TimeKey {
  metric: InsightTime;
  bucket: number;
}

export interface Merged<K> {
  key: K;
  counts: number[];
}

export interface TakenRollups {
  hours: Array<Merged<HourKey>>;
  hourTimes: Array<Merged<HourKey & TimeKey>>;
  periods: Array<Merged<PeriodKey>>;
  periodTimes: Array<Merged<PeriodKey & TimeKey>>;
}

type Op = { kind: 'count'; key: HourKey; counts: Partial<InsightCounts> } | { kind: 'time'; key: HourKey; time: TimeKey; n: number };

/** A journal row: hour rows `[hour, topic, expert, consumer, column index, n, column index, n, …]` and time rows `[hour, topic, expert, consumer, metric, bucket, n]`. */
interface Journal {
  h: Array<Array<string | number>>;
  t: Array<Array<string | number>>;
}

const UNITS: readonly PeriodUnit[] = ['day', 'week'];
const COUNT_INDEX = new Map<InsightCount, number>(INSIGHT_COUNTS.map((c, i) => [c, i]));

/** The day and week rows an hour row also counts in, given the starts of its day and week. */
export function periodKeys(key: HourKey, starts: Record<PeriodUnit, number>): PeriodKey[] {
  const out: PeriodKey[] = [];
  for (const unit of UNITS) {
    const start = starts[unit];
    if (key.expert === '') {
      out.push({ unit, dim: 'all', value: '', start }, { unit, dim: 'topic', value: key.topic, start }, { unit, dim: 'consumer', value: key.consumer, start });
    } else out.push({ unit, dim: 'expert', value: key.expert, start });
  }
  return out;
}

/** Sums into rows by key; the rows come out ordered by key, so concurrent writers lock them in one order. */
class Merger<K> {
  private readonly rows = new Map<string, Merged<K>>();
  constructor(private readonly width: number) {}

  add(id: string, key: K, index: number, n: number): void {
    this.row(id, key).counts[index]! += n;
  }

  /** Adds a whole row of counts. */
  addAll(id: string, key: K, counts: readonly number[]): void {
    const into = this.row(id, key).counts;
    for (let i = 0; i < counts.length; i++) into[i]! += counts[i]!;
  }

  private row(id: string, key: K): Merged<K> {
    let row = this.rows.get(id);
    if (!row) this.rows.set(id, (row = { key, counts: new Array<number>(this.width).fill(0) }));
    return row;
  }

  /** The rows in the order they were first added. */
  all(): Array<Merged<K>> {
    return [...this.rows.values()];
  }

  sorted(): Array<Merged<K>> {
    return [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  }
}

const hourId = (k: HourKey) => `${k.expert}\u0000${k.hour}\u0000${k.topic}\u0000${k.consumer}`;
const periodId = (k: PeriodKey) => `${k.unit}\u0000${k.dim}\u0000${k.value}\u0000${k.start}`;
const timeId = (k: TimeKey) => `\u0000${k.metric}\u0000${k.bucket}`;

export class InsightBuffer {
  private ops: Op[] = [];
  /** Hour starts seen, with their periods: a batch's many rows share a handful of hours. */
  private readonly starts = new Map<string, number>();

  add(key: InsightKey, experts: readonly string[], counts: Partial<InsightCounts>): void {
    for (const expert of experts) this.ops.push({ kind: 'count', key: { ...key, expert }, counts });
  }

  addTime(key: InsightKey, experts: readonly string[], time: TimeKey): void {
    for (const expert of experts) this.ops.push({ kind: 'time', key: { ...key, expert }, time, n: 1 });
  }

  /** What was counted, as one journal row's text (null when nothing was); the buffer is empty after. Merging waits for the fold. */
  journal(): string | null {
    if (this.ops.length === 0) return null;
    const journal: Journal = { h: [], t: [] };
    for (const op of this.ops) {
      const { hour, topic, expert, consumer } = op.key;
      if (op.kind === 'time') journal.t.push([hour, topic, expert, consumer, op.time.metric, op.time.bucket, op.n]);
      else {
        const row: Array<string | number> = [hour, topic, expert, consumer];
        for (const column in op.counts) {
          const n = op.counts[column as InsightCount];
          if (n) row.push(COUNT_INDEX.get(column as InsightCount)!, n);
        }
        journal.h.push(row);
      }
    }
    this.ops = [];
    return JSON.stringify(journal);
  }

  /** Adds a journal row's counts (see `journal`). */
  addJournal(text: string): void {
    const journal = JSON.parse(text) as Journal;
    const keyOf = (row: Array<string | number>): HourKey => ({ hour: Number(row[0]), topic: String(row[1]), expert: String(row[2]), consumer: String(row[3]) });
    for (const row of journal.h) {
      const counts: Partial<InsightCounts> = {};
      for (let i = 4; i < row.length; i += 2) counts[INSIGHT_COUNTS[Number(row[i])]!] = Number(row[i + 1]);
      this.ops.push({ kind: 'count', key: keyOf(row), counts });
    }
    for (const row of journal.t) this.ops.push({ kind: 'time', key: keyOf(row), time: { metric: row[4] as InsightTime, bucket: Number(row[5]) }, n: Number(row[6]) });
  }

  get empty(): boolean {
    return this.ops.length === 0;
  }

  /** Where a savepoint begins. */
  mark(): number {
    return this.ops.length;
  }

  /** Forgets what was counted since `mark`. */
  rollBack(mark: number): void {
    this.ops.length = Math.min(mark, this.ops.length);
  }

  /** Everything counted, merged, in hour rows and the rows of the days and weeks of `zone` (none without one); the buffer is empty after. */
  take(zone: string | null): TakenRollups {
    const { hours, hourTimes } = this.mergeHours();
    this.ops = [];
    const periods = new Merger<PeriodKey>(INSIGHT_COUNTS.length);
    const periodTimes = new Merger<PeriodKey & TimeKey>(1);
    // Days and weeks from the merged hour rows: far fewer than the counts that made them.
    if (zone !== null) {
      for (const row of hours.all()) for (const p of this.periodsOf(row.key, zone)) periods.addAll(periodId(p), p, row.counts);
      for (const row of hourTimes.all()) {
        const time = { metric: row.key.metric, bucket: row.key.bucket };
        for (const p of this.periodsOf(row.key, zone)) periodTimes.add(periodId(p) + timeId(time), { ...p, ...time }, 0, row.counts[0]!);
      }
    }
    return { hours: hours.sorted(), hourTimes: hourTimes.sorted(), periods: periods.sorted(), periodTimes: periodTimes.sorted() };
  }

  private mergeHours(): { hours: Merger<HourKey>; hourTimes: Merger<HourKey & TimeKey> } {
    const hours = new Merger<HourKey>(INSIGHT_COUNTS.length);
    const hourTimes = new Merger<HourKey & TimeKey>(1);
    for (const op of this.ops) {
      const id = hourId(op.key);
      if (op.kind === 'count') {
        for (const column in op.counts) {
          const n = op.counts[column as InsightCount];
          if (n) hours.add(id, op.key, COUNT_INDEX.get(column as InsightCount)!, n);
        }
      } else hourTimes.add(id + timeId(op.time), { ...op.key, ...op.time }, 0, op.n);
    }
    return { hours, hourTimes };
  }

  private periodsOf(key: HourKey, zone: string): PeriodKey[] {
    // Computed once per hour (time zone arithmetic is the slow part), then keyed per row.
    return periodKeys(key, { day: this.startOf(key.hour, zone, 'day'), week: this.startOf(key.hour, zone, 'week') });
  }

  private startOf(hour: number, zone: string, unit: PeriodUnit): number {
    const id = `${zone} ${unit} ${hour}`;
    let start = this.starts.get(id);
    if (start === undefined) {
      if (this.starts.size > 10_000) this.starts.clear();
      this.starts.set(id, (start = periodStart(hour, zone, unit)));
    }
    return start;
  }
}
