import { describe, expect, it } from 'vitest';
import { isQuietAt, quietHoursEnd, startOfNextLocalDay } from '../../src/core/local-time.js';
import { compareWaiting } from '../../src/core/waiting-order.js';

const at = (iso: string) => Date.parse(iso);
const isoOf = (ms: number) => new Date(ms).toISOString();

describe('startOfNextLocalDay', () => {
  it('is the next local midnight, 23 or 25 hours away on DST change days', () => {
    expect(isoOf(startOfNextLocalDay(at('2026-11-23T10:00:00Z'), 'UTC'))).toBe('2026-11-24T00:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-11-23T22:59:59Z'), 'Europe/Berlin'))).toBe('2026-11-23T23:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-11-23T23:00:00Z'), 'Europe/Berlin'))).toBe('2026-11-24T23:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-03-29T10:00:00Z'), 'Europe/Berlin'))).toBe('2026-03-29T22:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-10-25T10:00:00Z'), 'Europe/Berlin'))).toBe('2026-10-25T23:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-03-08T12:00:00Z'), 'America/New_York'))).toBe('2026-03-09T04:00:00.000Z');
    expect(isoOf(startOfNextLocalDay(at('2026-11-01T12:00:00Z'), 'America/New_York'))).toBe('2026-11-02T05:00:00.000Z');
    // Month and year ends.
    expect(isoOf(startOfNextLocalDay(at('2026-12-31T20:00:00Z'), 'America/New_York'))).toBe('2027-01-01T05:00:00.000Z');
  });
});

describe('quietHoursEnd', () => {
  const night: [string, string] = ['22:00', '07:00'];

  it('ends a wrapping window at the next 07:00 local, before or after midnight', () => {
    expect(isoOf(quietHoursEnd(at('2026-11-23T21:30:00Z'), 'Europe/Berlin', night))).toBe('2026-11-24T06:00:00.000Z'); // 22:30
    expect(isoOf(quietHoursEnd(at('2026-11-24T02:00:00Z'), 'Europe/Berlin', night))).toBe('2026-11-24T06:00:00.000Z'); // 03:00
  });

  it('ends a window that does not wrap the same day', () => {
    expect(isoOf(quietHoursEnd(at('2026-11-23T12:30:00Z'), 'UTC', ['12:00', '14:00']))).toBe('2026-11-23T14:00:00.000Z');
  });

  it('follows the zone across DST changes, including an end time inside the spring-forward gap', () => {
    expect(isoOf(quietHoursEnd(at('2026-03-28T22:00:00Z'), 'Europe/Berlin', night))).toBe('2026-03-29T05:00:00.000Z');
    expect(isoOf(quietHoursEnd(at('2026-10-24T21:00:00Z'), 'Europe/Berlin', night))).toBe('2026-10-25T06:00:00.000Z');
    expect(isoOf(quietHoursEnd(at('2026-03-08T04:00:00Z'), 'America/New_York', night))).toBe('2026-03-08T11:00:00.000Z');
    expect(isoOf(quietHoursEnd(at('2026-11-01T03:00:00Z'), 'America/New_York', night))).toBe('2026-11-01T12:00:00.000Z');
    // 02:30 does not exist in Berlin on 2026-03-29: the window ends when the clock jumps to 03:00.
    expect(isoOf(quietHoursEnd(at('2026-03-28T23:30:00Z'), 'Europe/Berlin', ['00:00', '02:30']))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('keeps a window that ends in the repeated hour of a fall-back night quiet until the end shows the second time', () => {
    // Berlin, 2026-10-25: the clock shows 02:00-03:00 twice (00:00Z-01:00Z summer time, 01:00Z-02:00Z winter time).
    const late: [string, string] = ['22:00', '02:30'];
    expect(isQuietAt(at('2026-10-25T00:45:00Z'), 'Europe/Berlin', late)).toBe(true); // 02:45, first showing
    expect(isQuietAt(at('2026-10-25T01:00:00Z'), 'Europe/Berlin', late)).toBe(true); // 02:00, second showing
    expect(isoOf(quietHoursEnd(at('2026-10-25T01:00:00Z'), 'Europe/Berlin', late))).toBe('2026-10-25T01:30:00.000Z');
    expect(isQuietAt(at('2026-10-25T01:30:00Z'), 'Europe/Berlin', late)).toBe(false);
  });
});

describe('compareWaiting', () => {
  it('orders by submission, then request, then when the ask was planned', () => {
    const item = (submittedAt: number, requestId: string, createdAt: number, id: string) => ({ submittedAt, requestId, createdAt, id });
    const items = [item(2, 'req_b', 5, 'ask_3'), item(1, 'req_c', 9, 'ask_2'), item(2, 'req_a', 7, 'ask_1'), item(1, 'req_c', 8, 'ask_4')];
    expect(items.sort(compareWaiting).map((i) => i.id)).toEqual(['ask_4', 'ask_2', 'ask_1', 'ask_3']);
  });
});
