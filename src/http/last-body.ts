/**
 * The JSON body a route wrote last, written again while the route computes an equal value: the
 * Experts page asks for the whole registry every few seconds and it rarely changes in between, and
 * checking and writing 600 experts (143 KB) cost more than reading their live state. Only for values
 * built fresh on every call (a kept value changed in place would compare equal to itself).
 */
export class LastBody<T> {
  private last: { value: T; body: string } | null = null;

  constructor(private readonly serialize: (value: T) => string) {}

  /** The body of `value`: the last one when `value` equals the last value, else serialized anew. */
  bodyOf(value: T): string {
    if (this.last !== null && sameJson(this.last.value, value)) return this.last.body;
    const body = this.serialize(value);
    this.last = { value, body };
    return body;
  }
}

/** Whether two JSON values (plain objects, arrays, strings, numbers, booleans, null) are equal. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    // A field present as `undefined` is left out of JSON as an absent one is.
    if (x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    keys++;
  }
  for (const key in y) if (y[key] !== undefined) keys--;
  return keys === 0;
}
