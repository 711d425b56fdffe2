import { describe, expect, it } from 'vitest';
import { relativeText, timeText } from '../../src/core/describe-time.js';

const now = Date.parse('2026-11-24T13:00:00Z');

describe('timeText', () => {
  it.each([
    ['2026-11-24T14:05:00Z', 'UTC', '14:05 UTC'],
    ['2026-11-25T11:37:00Z', 'UTC', 'Wed 25 Nov 11:37 UTC'],
    ['2026-11-23T09:00:00Z', 'UTC', 'Mon 23 Nov 09:00 UTC'],
    ['2026-11-25T11:37:00Z', 'Europe/Berlin', 'Wed 25 Nov 12:37 Europe/Berlin'],
    // 23:30 UTC is already tomorrow in Berlin.
    ['2026-11-24T23:30:00Z', 'Europe/Berlin', 'Wed 25 Nov 00:30 Europe/Berlin'],
    ['2026-11-24T22:30:00Z', 'Europe/Berlin', '23:30 Europe/Berlin'],
  ])('%s in %s reads %s', (at, zone, text) => {
    expect(timeText(Date.parse(at), now, zone)).toBe(text);
  });
});

describe('relativeText', () => {
  it.each([
    [now + 30_000, 'in under a minute'],
    [now - 30_000, 'just now'],
    [now - 4 * 60_000, '4 min ago'],
    [now + 3 * 3_600_000, 'in 3 h'],
    [now + 90 * 60_000, 'in 1.5 h'],
    [now + 5 * 86_400_000, 'in 5 days'],
  ])('%s reads %s', (at, text) => {
    expect(relativeText(at, now)).toBe(text);
  });
});
