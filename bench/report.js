// Plain-text report helpers shared by every benchmark section.
import os from 'node:os';

export function printMachine() {
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), node ${process.version}, ${os.platform()} ${os.arch()}`);
}

export function printHeading(title) {
  console.log(`\n== ${title} ${'='.repeat(Math.max(3, 76 - title.length))}`);
}

/** Formats a number with a fixed number of decimals and thousands separators. */
export function num(value, decimals = 0) {
  return Number(value).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/**
 * Prints an aligned table. `columns` is [{ key, label, align?: 'left' | 'right' }], `rows` are objects
 * whose values are already formatted strings (or numbers).
 */
export function printRows(columns, rows) {
  const cells = rows.map((row) => columns.map((c) => String(row[c.key] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.label.length, ...cells.map((r) => r[i].length)));
  const line = (values) =>
    values
      .map((v, i) => ((columns[i].align ?? 'right') === 'left' ? v.padEnd(widths[i]) : v.padStart(widths[i])))
      .join('  ');
  console.log(line(columns.map((c) => c.label)));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) console.log(line(r));
}

/** The standard columns for an HTTP load result (see load.js). */
export const LOAD_COLUMNS = [
  { key: 'name', label: 'target', align: 'left' },
  { key: 'rps', label: 'req/s (avg)' },
  { key: 'p50', label: 'p50 ms' },
  { key: 'p99', label: 'p99 ms' },
  { key: 'total', label: 'total reqs' },
  { key: 'non2xx', label: 'non-2xx' },
  { key: 'errors', label: 'errors' },
];

export function loadRow(name, r) {
  return {
    name,
    rps: num(r.requestsPerSec, 1),
    p50: num(r.latencyP50, 2),
    p99: num(r.latencyP99, 2),
    total: num(r.total),
    non2xx: num(r.non2xx),
    errors: num(r.errors),
  };
}
