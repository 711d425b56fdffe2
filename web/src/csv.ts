/** A CSV cell: text, a number (written as it is, never localized), or null (an empty cell). */
export type CsvCell = string | number | null;

/**
 * One field, quoted when it must be (a comma, quote, line break or edge space), quotes doubled. Text
 * that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, return first) gets a leading
 * apostrophe, so an id like `=HYPERLINK(…)` stays text.
 */
export function csvField(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV document: the header row, then the rows, each line ended by CRLF (RFC 4180). */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
