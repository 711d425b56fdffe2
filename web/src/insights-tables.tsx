import { toCsv, type CsvCell } from './csv.js';
import { downloadCsv } from './csv-download.js';
import { duration, percent, ratio } from './insight-format.js';
import type { InsightFigures } from './wire.js';

/**
 * A column of a figures table: the header shown, the header in the CSV (with its unit), the value the
 * CSV holds (a plain number; shares as fractions), and how the page writes it.
 */
export interface Column<R> {
  label: string;
  csv: string;
  value: (row: R) => CsvCell;
  text?: (row: R) => string;
}

const plain = (cell: CsvCell) => (cell === null ? '—' : String(cell));

/**
 * A table of figures with its CSV download. The table scrolls inside its own box (it may be wider
 * than a phone, or a hundred weeks long), so the page never scrolls sideways; the box takes the focus
 * so the keyboard can scroll it.
 */
export function DataTable<R>(props: { title: string; file: string; columns: ReadonlyArray<Column<R>>; rows: readonly R[]; empty: string; /** What the CSV holds when the table shows only some rows. */ csvRows?: readonly R[] }) {
  const { columns, rows } = props;
  const download = () => downloadCsv(`${props.file}.csv`, toCsv(columns.map((c) => c.csv), (props.csvRows ?? rows).map((r) => columns.map((c) => c.value(r)))));
  return (
    <div class="figures-block">
      <div class="figures-tools">
        <button type="button" class="small" onClick={download} aria-label={`Download CSV: ${props.title}`}>Download CSV</button>
      </div>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={`${props.title} (table)`}>
        <table class="figures">
          <caption class="sr-only">{props.title}</caption>
          <thead>
            <tr>{columns.map((c, i) => <th key={c.label} scope="col" class={i > 0 ? 'num' : undefined}>{c.label}</th>)}</tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr><td colSpan={columns.length} class="muted">{props.empty}</td></tr>
            ) : rows.map((r, n) => (
              <tr key={n}>
                {columns.map((c, i) => {
                  const text = c.text ? c.text(r) : plain(c.value(r));
                  return i === 0 ? <th key={c.label} scope="row">{text}</th> : <td key={c.label} class="num">{text}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

type Row = InsightFigures & { key: string };

const count = (label: string, value: (r: Row) => number): Column<Row> => ({ label, csv: label, value });
const time = (label: string, value: (r: Row) => number | null): Column<Row> => ({ label, csv: `${label} (seconds)`, value, text: (r) => duration(value(r)) });
const share = (label: string, value: (r: Row) => number | null): Column<Row> => ({ label, csv: `${label} (fraction of 1)`, value, text: (r) => percent(value(r)) });
const week: Column<Row> = { label: 'Week of', csv: 'Week (first day)', value: (r) => r.key };

export const OUTCOME_COLUMNS: ReadonlyArray<Column<Row>> = [
  week,
  count('Submitted', (r) => r.requests.submitted),
  count('Accepted', (r) => r.requests.accepted),
  count('Rejected', (r) => r.requests.rejected),
  count('Failed', (r) => r.requests.failed),
  count('Open', (r) => r.requests.open),
];

export const TIME_COLUMNS: ReadonlyArray<Column<Row>> = [
  week,
  time('First answer p50', (r) => r.time_to_first_answer.p50_s),
  time('First answer p90', (r) => r.time_to_first_answer.p90_s),
  count('First answers', (r) => r.time_to_first_answer.count),
  time('Decision p50', (r) => r.proposal_to_decision.p50_s),
  time('Decision p90', (r) => r.proposal_to_decision.p90_s),
  count('Decisions', (r) => r.proposal_to_decision.count),
];

export const REUSE_COLUMNS: ReadonlyArray<Column<Row>> = [
  week,
  count('Answered from the library', (r) => r.answered_from_library),
  count('Asks spared', (r) => r.asks_spared),
  count('Answered by experts', (r) => r.answers),
];

export const TOPIC_COLUMNS: ReadonlyArray<Column<Row>> = [
  { label: 'Topic', csv: 'Topic', value: (r) => r.key },
  count('Submitted', (r) => r.requests.submitted),
  count('Accepted', (r) => r.requests.accepted),
  count('Rejected', (r) => r.requests.rejected),
  count('Failed', (r) => r.requests.failed),
  count('Open', (r) => r.requests.open),
  count('From the library', (r) => r.answered_from_library),
  time('First answer p50', (r) => r.time_to_first_answer.p50_s),
  share('Escalated', (r) => r.share_escalated),
];

/** Each expert's load and answer rate; `name` turns an expert id into the name shown. */
export function expertColumns(name: (id: string) => string): ReadonlyArray<Column<Row>> {
  return [
    { label: 'Expert', csv: 'Expert id', value: (r) => r.key, text: (r) => name(r.key) },
    count('Asks', (r) => r.asks),
    share('Share of asks', (r) => r.share_of_asks),
    count('Answers', (r) => r.answers),
    share('Answer rate', (r) => ratio(r.answers, r.asks)),
    count('Skips', (r) => r.skips),
    count('Mutes', (r) => r.mutes),
    time('First answer p50', (r) => r.time_to_first_answer.p50_s),
  ];
}
