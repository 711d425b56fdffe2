import { describe, expect, it } from 'vitest';
import { instantOf, isQuietAt, startOfLocalDay } from '../../src/core/local-time.js';

const at = (iso: string) => Date.parse(iso);

describe('local time with Intl', () => {
  it('finds the start of the local day, including on DST change days', () => {
    expect(new Date(startOfLocalDay(at('2026-11-23T04:30:00Z'), 'America/New_York')).toISOString()).toBe('2026-11-22T05:00:00.000Z');
    // Berlin springs forward on 2026-03-29 and falls back on 2026-10-25: midnight is +01:00 and +02:00.
    expect(new Date(startOfLocalDay(at('2026-03-29T20:00:00Z'), 'Europe/Berlin')).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(startOfLocalDay(at('2026-10-25T20:00:00Z'), 'Europe/Berlin')).toISOString()).toBe('2026-10-24T22:00:00.000Z');
  });

  it('maps a wall time in a spring-forward gap to the first instant after it', () => {
    // 02:30 does not exist in Berlin on 2026-03-29; the clock jumps from 02:00 to 03:00 (01:00Z).
    expect(new Date(instantOf(2026, 3, 29, 2, 30, 'Europe/Berlin')).toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });

  it('evaluates quiet hours in the zone, with windows that wrap midnight', () => {
    const night: [string, string] = ['22:00', '07:00'];
    expect(isQuietAt(at('2026-11-23T21:30:00Z'), 'Europe/Berlin', night)).toBe(true); // 22:30 local
    expect(isQuietAt(at('2026-11-23T05:59:00Z'), 'Europe/Berlin', night)).toBe(true); // 06:59 local
    expect(isQuietAt(at('2026-11-23T06:00:00Z'), 'Europe/Berlin', night)).toBe(false); // 07:00 local
    expect(isQuietAt(at('2026-11-23T12:00:00Z'), 'Europe/Berlin', ['12:00', '14:00'])).toBe(true); // 13:00 local
    expect(isQuietAt(at('2026-11-23T13:00:00Z'), 'Europe/Berlin', ['12:00', '14:00'])).toBe(false); // 14:00 local
    expect(isQuietAt(at('2026-11-23T13:00:00Z'), 'Europe/Berlin', null)).toBe(false);
  });
});
