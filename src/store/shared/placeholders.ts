/**
 * SQL written once for both engines uses `?` for each value, in order (SQLite's own placeholder).
 * PostgreSQL numbers them: `pgText` turns each `?` outside a quoted string into `$1`, `$2`, … .
 * The texts are constants, so each is converted once and kept.
 */
const converted = new Map<string, string>();

export function pgText(text: string): string {
  let out = converted.get(text);
  if (out !== undefined) return out;
  let n = 0;
  // A quoted string or identifier is kept as it is; a `?` outside one is a value.
  out = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (token) => (token === '?' ? `$${++n}` : token));
  converted.set(text, out);
  return out;
}

/** A shared clause's `?` as the `$?` that PostgreSQL's `whereClause` numbers as it joins clauses. */
export function forWhereClause(clause: string): string {
  return clause.replace(/'(?:[^']|'')*'|\?/g, (token) => (token === '?' ? '$?' : token));
}

/** A table of shared statements as PostgreSQL runs them. */
export function pgStatements<K extends string>(table: Readonly<Record<K, string>>): Record<K, string> {
  return Object.fromEntries(Object.entries<string>(table).map(([k, text]) => [k, pgText(text)])) as Record<K, string>;
}
