import { describe, expect, it } from 'vitest';
import { pgNamed, pgText } from '../../src/store/shared/placeholders.js';

// SQL written once for both engines: how PostgreSQL is given it.
describe('placeholders for PostgreSQL', () => {
  it('numbers each ? in order, leaving a ? inside a quoted string or identifier as it is', () => {
    expect(pgText(`SELECT * FROM t WHERE a = ? AND b = '?' AND "c?" = ? AND d IN (SELECT value FROM x WHERE y = ?)`)).toBe(
      `SELECT * FROM t WHERE a = $1 AND b = '?' AND "c?" = $2 AND d IN (SELECT value FROM x WHERE y = $3)`,
    );
  });

  it('numbers named values in the order they first come, each name once, with only the values the text uses', () => {
    const { text, values } = pgNamed(`SELECT count(*) FROM e WHERE at < @outbox AND (d < @outbox OR id IN (SELECT id FROM r WHERE u < @requests))`, {
      requests: 20,
      outbox: 10,
      unused: 30,
    });
    expect(text).toBe(`SELECT count(*) FROM e WHERE at < $1 AND (d < $1 OR id IN (SELECT id FROM r WHERE u < $2))`);
    expect(values).toEqual([10, 20]);
  });

  it("leaves an @ in a quoted string or an operator (@@, @>) alone, and refuses a name it has no value for", () => {
    expect(pgNamed(`SELECT 'a@b' AS s WHERE w @@ q AND j @> '{}' AND at < @before`, { before: 1 })).toEqual({
      text: `SELECT 'a@b' AS s WHERE w @@ q AND j @> '{}' AND at < $1`,
      values: [1],
    });
    expect(() => pgNamed('SELECT 1 WHERE at < @before', {})).toThrow(/no value for @before/);
  });
});
