import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, LastBody, sameJson } from '../../src/http/last-body.js';

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

describe('LastBody.gzippedOf', () => {
  it('gzips the body of the value once while it stays equal, and a changed value anew', async () => {
    const last = new LastBody((value: unknown) => JSON.stringify(value));
    const first = await last.gzippedOf([{ id: 'ana', open: 1 }]);
    expect(gunzipSync(first).toString('utf8')).toBe('[{"id":"ana","open":1}]');
    expect(await last.gzippedOf([{ id: 'ana', open: 1 }])).toBe(first);
    expect(gunzipSync(await last.gzippedOf([{ id: 'ana', open: 2 }])).toString('utf8')).toBe('[{"id":"ana","open":2}]');
  });
});

describe('acceptsGzip', () => {
  it('takes gzip when listed or covered by *, unless its weight is 0', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('br, gzip;q=0')).toBe(false);
    expect(acceptsGzip('*, gzip;q=0')).toBe(false);
    expect(acceptsGzip('*;q=0')).toBe(false);
  });
});
