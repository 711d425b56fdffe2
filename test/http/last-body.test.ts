import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LastBody, sameJson } from '../../src/http/last-body.js';

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('sameJson', () => {
  it('says two values are equal exactly when their JSON is the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameJson(a, b)).toBe(isDeepStrictEqual(asJson(a), asJson(b)));
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
    );
  });

  it('treats a field that is undefined as absent, as JSON does, and tells arrays from objects', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ 0: 1 }, [1])).toBe(false);
  });
});

describe('LastBody', () => {
  it('writes an equal value with the body it wrote last, and a changed one anew', () => {
    const written: unknown[] = [];
    const last = new LastBody((value: unknown) => (written.push(value), JSON.stringify(value)));
    expect(last.bodyOf([{ id: 'ana', open: 1 }])).toBe('[{"id":"ana","open":1}]');
    expect(last.bodyOf([{ id: 'ana', open: 1 }])).toBe('[{"id":"ana","open":1}]');
    expect(last.bodyOf([{ id: 'ana', open: 2 }])).toBe('[{"id":"ana","open":2}]');
    expect(written).toHaveLength(2);
  });
});
