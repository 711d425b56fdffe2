import { INSIGHT_COUNTS } from '../insight-repository.js';

/**
 * The migration that creates the insight rollups and fills them from the history kept (requests, asks,
 * proposals, audit): each figure counted as the service counts it live (`service/engine/insight-counts.ts`),
 * so a database migrated equals one that kept its rollups all along. Written once for both engines;
 * what differs is how each reads JSON, turns an ISO time into milliseconds and bounds a number.
 * Never edit what this returns once shipped: a later change is a new migration.
 */
export interface Dialect {
  /** A JSON text column's field as text. */
  field(column: string, name: string): string;
  /** An ISO 8601 text as epoch milliseconds. */
  isoMs(text: string): string;
  /** The smaller of two numbers. */
  min(a: string, b: string): string;
  integer: string;
  text: string;
  /** After CREATE TABLE's closing parenthesis. */
  tableOptions: string;
  /** A key numbered in the order rows are added. */
  serialKey: string;
}

const hour = (ms: string) => `(${ms} / 3600000) * 3600000`;
const sumIf = (condition: string) => `SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
/** `core/insight-buckets.ts` in SQL: 0 under a second, else 1 + ⌊log₁.₂ s⌋, at most 102. */
const bucket = (d: Dialect, ms: string) => `CASE WHEN ${ms} < 1000 THEN 0 ELSE ${d.min('102', `1 + CAST(floor(ln((${ms}) / 1000.0) / ln(1.2)) AS INTEGER)`)} END`;
const ON_KEY = 'ON CONFLICT (expert, hour, topic, consumer) DO UPDATE SET';
const adding = (columns: readonly string[]) => columns.map((c) => `${c} = insight_hours.${c} + excluded.${c}`).join(', ');
/** Each row of a FROM counted twice: for everything (k = 0) and for its expert (k = 1). */
const BOTH = 'CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1 AS k) AS f';
const either = (expert: string) => `CASE WHEN f.k = 0 THEN '' ELSE ${expert} END`;
const REASONS = ['timeout', 'no_expert_found', 'expert_declined', 'rate_limited', 'cancelled', 'error'];
const OUTCOMES = [sumIf("r.status = 'accepted'"), sumIf("r.status = 'rejected'"), ...REASONS.map((code) => sumIf(`r.status = 'failed' AND r.reason_code = '${code}'`))].join(', ');
const OUTCOME_COLUMNS = 'requests, accepted, rejected, failed_timeout, failed_no_expert_found, failed_expert_declined, failed_rate_limited, failed_cancelled, failed_error, asked_requests, escalated_requests';
const ESCALATED = "LEFT JOIN (SELECT DISTINCT request_id FROM audit WHERE type = 'escalated') AS u ON u.request_id = r.id";

export function insightMigration(d: Dialect): string {
  const counts = INSIGHT_COUNTS.map((c) => `${c} ${d.integer} NOT NULL DEFAULT 0`).join(',\n    ');
  const key = `hour ${d.integer} NOT NULL, topic ${d.text} NOT NULL, expert ${d.text} NOT NULL, consumer ${d.text} NOT NULL`;
  // The journal: each transaction's counts, merged, until they are folded into the rows below.
  // Per day and week of the organisation: filled from the hours when the service starts (they depend on its time zone).
  const periodKey = `unit ${d.text} NOT NULL, dim ${d.text} NOT NULL, value ${d.text} NOT NULL, start ${d.integer} NOT NULL`;
  /** A table of counts under `key`, and its table of time buckets. */
  const rollupTables = (name: string, times: string, key: string, primary: string) => `
  CREATE TABLE ${name} (${key}, ${counts}, PRIMARY KEY (${primary}))${d.tableOptions};
  CREATE TABLE ${times} (${key}, metric ${d.text} NOT NULL, bucket INTEGER NOT NULL, n ${d.integer} NOT NULL, PRIMARY KEY (${primary}, metric, bucket))${d.tableOptions};`;
  const provenanceExpert = d.field('p.provenance', 'expert_id');
  const events = (column: string, select: string) =>
    `INSERT INTO insight_hours (hour, topic, expert, consumer, ${column}) ${select} GROUP BY 1, 2, 3, 4 ${ON_KEY} ${adding([column])};`;
  const times = (metric: string, ms: string, at: string, from: string) =>
    `INSERT INTO insight_times (hour, topic, expert, consumer, metric, bucket, n)
    SELECT ${hour(at)}, r.topic, ${either(provenanceExpert)}, r.consumer_id, '${metric}', ${bucket(d, ms)}, COUNT(*) ${from}
    GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT (expert, hour, topic, consumer, metric, bucket) DO UPDATE SET n = insight_times.n + excluded.n;`;
  const firstAnswer = `NOT EXISTS (SELECT 1 FROM proposals q WHERE q.request_id = p.request_id AND ${d.field('q.provenance', 'ask_id')} IS NOT NULL
      AND (q.created_at < p.created_at OR (q.created_at = p.created_at AND q.id < p.id)))`;
  const answeredAt = d.isoMs(d.field('p.provenance', 'answered_at'));
  const decided = "p.status IN ('accepted', 'rejected') AND p.decided_by <> 'expertq' AND coalesce(p.reason, '') <> 'returned'";
  return `
  ${rollupTables('insight_hours', 'insight_times', key, 'expert, hour, topic, consumer')}
  CREATE TABLE insight_journal (id ${d.serialKey}, counts ${d.text} NOT NULL);
  ${rollupTables('insight_periods', 'insight_period_times', periodKey, 'unit, dim, value, start')}
  INSERT INTO insight_hours (hour, topic, expert, consumer, ${OUTCOME_COLUMNS})
    SELECT ${hour('r.created_at')}, r.topic, '', r.consumer_id, COUNT(*), ${OUTCOMES}, ${sumIf('a.request_id IS NOT NULL')}, ${sumIf('u.request_id IS NOT NULL')}
    FROM requests r LEFT JOIN (SELECT DISTINCT request_id FROM asks WHERE sent_at IS NOT NULL) AS a ON a.request_id = r.id ${ESCALATED}
    WHERE true GROUP BY 1, 2, 4;
  INSERT INTO insight_hours (hour, topic, expert, consumer, ${OUTCOME_COLUMNS})
    SELECT ${hour('r.created_at')}, r.topic, e.expert_id, r.consumer_id, COUNT(*), ${OUTCOMES}, COUNT(*), ${sumIf('u.request_id IS NOT NULL')}
    FROM (SELECT DISTINCT request_id, expert_id FROM asks WHERE sent_at IS NOT NULL) AS e JOIN requests r ON r.id = e.request_id ${ESCALATED}
    WHERE true GROUP BY 1, 2, 3, 4;
  ${events('asks', `SELECT ${hour('a.sent_at')}, r.topic, ${either('a.expert_id')}, r.consumer_id, COUNT(*) FROM asks a JOIN requests r ON r.id = a.request_id ${BOTH} WHERE a.sent_at IS NOT NULL`)}
  ${events('skips', `SELECT ${hour('x.at')}, r.topic, ${either('a.expert_id')}, r.consumer_id, COUNT(*) FROM audit x JOIN requests r ON r.id = x.request_id JOIN asks a ON a.id = ${d.field('x.data', 'ask_id')} ${BOTH} WHERE x.type = 'skipped' AND ${d.field('x.data', 'why')} = 'skip'`)}
  ${events('mutes', `SELECT ${hour('x.at')}, r.topic, ${either('a.expert_id')}, r.consumer_id, COUNT(*) FROM audit x JOIN requests r ON r.id = x.request_id JOIN asks a ON a.id = ${d.field('x.data', 'ask_id')} ${BOTH} WHERE x.type = 'muted'`)}
  ${events('cap_holds', `SELECT ${hour('x.at')}, r.topic, '', r.consumer_id, COUNT(*) FROM audit x JOIN requests r ON r.id = x.request_id WHERE x.type = 'held'`)}
  ${events('proposals', `SELECT ${hour('p.created_at')}, r.topic, ${either(provenanceExpert)}, r.consumer_id, COUNT(*) FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE true`)}
  ${events('answers', `SELECT ${hour(answeredAt)}, r.topic, ${either(provenanceExpert)}, r.consumer_id, COUNT(*) FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE ${d.field('p.provenance', 'ask_id')} IS NOT NULL`)}
  ${events('sent_back', `SELECT ${hour('p.decided_at')}, r.topic, ${either(provenanceExpert)}, r.consumer_id, COUNT(*) FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE p.reason = 'returned' AND p.decided_by <> 'expertq'`)}
  ${events('library_answers', `SELECT ${hour('p.decided_at')}, r.topic, ${either(provenanceExpert)}, r.consumer_id, COUNT(*) FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE p.status = 'accepted' AND ${d.field('p.provenance', 'reused_from')} IS NOT NULL`)}
  ${times('answer', `${answeredAt} - r.created_at`, answeredAt, `FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE ${d.field('p.provenance', 'ask_id')} IS NOT NULL AND ${firstAnswer}`)}
  ${times('decision', 'p.decided_at - p.created_at', 'p.decided_at', `FROM proposals p JOIN requests r ON r.id = p.request_id ${BOTH} WHERE ${decided}`)}
  `;
}

export const SQLITE_DIALECT: Dialect = {
  field: (column, name) => `json_extract(${column}, '$.${name}')`,
  isoMs: (text) => `CAST(round((julianday(${text}) - 2440587.5) * 86400000.0) AS INTEGER)`,
  min: (a, b) => `min(${a}, ${b})`,
  integer: 'INTEGER',
  text: 'TEXT',
  tableOptions: ' STRICT, WITHOUT ROWID',
  serialKey: 'INTEGER PRIMARY KEY AUTOINCREMENT',
};

export const PG_DIALECT: Dialect = {
  field: (column, name) => `(${column}::jsonb ->> '${name}')`,
  isoMs: (text) => `CAST(round(extract(epoch FROM CAST(${text} AS timestamptz)) * 1000) AS BIGINT)`,
  min: (a, b) => `least(${a}, ${b})`,
  integer: 'BIGINT',
  text: 'TEXT COLLATE "C"',
  tableOptions: '',
  serialKey: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
};
