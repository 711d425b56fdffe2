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

/**
 * A text with named values (`@outbox`, SQLite's own form) as PostgreSQL runs it: each name becomes
 * `$1`, `$2`, … in the order it first comes, and `values` gives each number its value.
 */
export function pgNamed(text: string, named: Readonly<Record<string, unknown>>): { text: string; values: unknown[] } {
  const numbers = new Map<string, number>();
  const values: unknown[] = [];
  const out = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|(?<!@)@([A-Za-z_]\w*)/g, (token, name: string | undefined) => {
    if (name === undefined) return token;
    let n = numbers.get(name);
    if (n === undefined) {
      if (!(name in named)) throw new Error(`no value for @${name}`);
      numbers.set(name, (n = values.push(named[name])));
    }
    return `$${n}`;
  });
  return { text: out, values };
}
