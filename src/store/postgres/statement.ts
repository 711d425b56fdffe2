import type pg from 'pg';

/**
 * Statements get a name (and so are parsed and planned once per connection) unless they return whole
 * rows (`*`): a migration that adds a column would make such a prepared statement fail with "cached
 * plan must not change result type" in an instance started before it. The names are per process.
 */
const names = new Map<string, string>();
/** Beyond this many distinct texts, new ones run unnamed, so the server keeps a bounded set per connection. */
const MAX_NAMES = 500;
const WHOLE_ROWS = /(?:SELECT|RETURNING|,)\s+(?:\w+\.)?\*/i;

export function statement(text: string, values: unknown[] | undefined): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES && !WHOLE_ROWS.test(text)) {
    name = `expertq_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
