import { INSIGHT_COUNTS } from '../insight-repository.js';
import type { HourKey, Merged, PeriodKey, TakenRollups, TimeKey } from './insight-buffer.js';

/**
 * The writes of folded rollups (`InsightBuffer.take`): one upsert per table and chunk, adding to the
 * rows already there. Chunks come in a few sizes so each engine prepares a few texts.
 */

interface Table<K> {
  name: string;
  key: readonly string[];
  conflict: readonly string[];
  counted: readonly string[];
  values(row: Merged<K>): unknown[];
}

const adding = (table: string, columns: readonly string[]) => columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');
const hourValues = (k: HourKey) => [k.hour, k.topic, k.expert, k.consumer];
const periodValues = (k: PeriodKey) => [k.unit, k.dim, k.value, k.start];

const HOURS: Table<HourKey> = {
  name: 'insight_hours',
  key: ['hour', 'topic', 'expert', 'consumer'],
  conflict: ['expert', 'hour', 'topic', 'consumer'],
  counted: INSIGHT_COUNTS,
  values: (row) => [...hourValues(row.key), ...row.counts],
};
const HOUR_TIMES: Table<HourKey & TimeKey> = {
  name: 'insight_times',
  key: ['hour', 'topic', 'expert', 'consumer', 'metric', 'bucket'],
  conflict: ['expert', 'hour', 'topic', 'consumer', 'metric', 'bucket'],
  counted: ['n'],
  values: (row) => [...hourValues(row.key), row.key.metric, row.key.bucket, row.counts[0]],
};
const PERIODS: Table<PeriodKey> = {
  name: 'insight_periods',
  key: ['unit', 'dim', 'value', 'start'],
  conflict: ['unit', 'dim', 'value', 'start'],
  counted: INSIGHT_COUNTS,
  values: (row) => [...periodValues(row.key), ...row.counts],
};
const PERIOD_TIMES: Table<PeriodKey & TimeKey> = {
  name: 'insight_period_times',
  key: ['unit', 'dim', 'value', 'start', 'metric', 'bucket'],
  conflict: ['unit', 'dim', 'value', 'start', 'metric', 'bucket'],
  counted: ['n'],
  values: (row) => [...periodValues(row.key), row.key.metric, row.key.bucket, row.counts[0]],
};

const CHUNKS = [64, 16, 4, 1];
const texts = new Map<string, string>();

function upsertSql(table: Table<never>, rows: number): string {
  const id = `${table.name} ${rows}`;
  let text = texts.get(id);
  if (text === undefined) {
    const columns = [...table.key, ...table.counted];
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    text = `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}
      ON CONFLICT (${table.conflict.join(', ')}) DO UPDATE SET ${adding(table.name, table.counted)}`;
    texts.set(id, text);
  }
  return text;
}

/** The statements that write `taken`, in a fixed order of tables and keys (so writers lock rows in one order). */
export function flushStatements(taken: TakenRollups): Array<{ sql: string; values: unknown[] }> {
  const out: Array<{ sql: string; values: unknown[] }> = [];
  const write = <K>(table: Table<K>, rows: Array<Merged<K>>) => {
    let i = 0;
    for (const size of CHUNKS) {
      while (rows.length - i >= size) {
        out.push({ sql: upsertSql(table as Table<never>, size), values: rows.slice(i, i + size).flatMap((r) => table.values(r)) });
        i += size;
      }
    }
  };
  write(HOURS, taken.hours);
  write(HOUR_TIMES, taken.hourTimes);
  write(PERIODS, taken.periods);
  write(PERIOD_TIMES, taken.periodTimes);
  return out;
}

/** The rollups' journal: a transaction's counts appended as one row; folded, oldest first, a batch at a time. */
export const JOURNAL = {
  append: 'INSERT INTO insight_journal (counts) VALUES (?)',
  take: 'SELECT id, counts FROM insight_journal ORDER BY id LIMIT 500',
  any: 'SELECT 1 AS yes FROM insight_journal LIMIT 1',
} as const;
