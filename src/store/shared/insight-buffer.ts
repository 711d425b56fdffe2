import { periodStart, type PeriodUnit } from '../../core/insight-periods.js';
import { type InsightCount, type InsightCounts, INSIGHT_COUNTS, type InsightKey, type InsightTime } from '../insight-repository.js';

/**
 * The rollup counts of one transaction, gathered as they are counted and written once, merged, just
 * before the commit (`take`): a batch of submits adds to the same few rows, so it writes them once
 * instead of once per submit. A savepoint that rolls back drops what was counted inside it (`mark`,
 * `rollBack`). Besides the hour rows, `take` derives the rows of the organisation's days and weeks:
 * of everything, per topic and per consumer from the rows of everything, and per expert.
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

type Op = { kind: 'count'; key: HourKey; counts: Partial<InsightCounts> } | { kind: 'time'; key: HourKey; time: TimeKey };

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
    let row = this.rows.get(id);
    if (!row) this.rows.set(id, (row = { key, counts: new Array<number>(this.width).fill(0) }));
    row.counts[index]! += n;
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
    for (const expert of experts) this.ops.push({ kind: 'time', key: { ...key, expert }, time });
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

  /** Everything counted, merged, in hour rows and the rows of the days and weeks of `zone`; the buffer is empty after. */
  take(zone: string): TakenRollups {
    const hours = new Merger<HourKey>(INSIGHT_COUNTS.length);
    const hourTimes = new Merger<HourKey & TimeKey>(1);
    const periods = new Merger<PeriodKey>(INSIGHT_COUNTS.length);
    const periodTimes = new Merger<PeriodKey & TimeKey>(1);
    for (const op of this.ops) {
      const inPeriods = this.periodsOf(op.key, zone);
      if (op.kind === 'count') {
        for (const [column, n] of Object.entries(op.counts) as Array<[InsightCount, number]>) {
          if (!n) continue;
          const index = COUNT_INDEX.get(column)!;
          hours.add(hourId(op.key), op.key, index, n);
          for (const p of inPeriods) periods.add(periodId(p), p, index, n);
        }
      } else {
        hourTimes.add(hourId(op.key) + timeId(op.time), { ...op.key, ...op.time }, 0, 1);
        for (const p of inPeriods) periodTimes.add(periodId(p) + timeId(op.time), { ...p, ...op.time }, 0, 1);
      }
    }
    this.ops = [];
    return { hours: hours.sorted(), hourTimes: hourTimes.sorted(), periods: periods.sorted(), periodTimes: periodTimes.sorted() };
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
