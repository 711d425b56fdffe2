import { describe, expect, it } from 'vitest';
import { formatWhen, relativeText } from '../../src/core/describe-time.js';

const now = Date.parse('2026-11-24T13:00:00Z');

const NOW = Date.parse('2026-11-24T13:14:00Z'); // a Tuesday

describe('formatWhen: times in the CLI carry their date unless they are today', () => {
  it.each([
    ['2026-11-24T14:00:00.000Z', 'UTC', '14:00 UTC today'],
    ['2026-11-24T00:00:00Z', 'UTC', '00:00 UTC today'],
    ['2026-11-25T11:37:00Z', 'UTC', 'Wed 25 Nov 11:37 UTC'],
    ['2026-11-23T23:59:00Z', 'UTC', 'Mon 23 Nov 23:59 UTC'],
    ['2027-01-05T09:05:00Z', 'UTC', 'Tue 5 Jan 2027 09:05 UTC'],
    // In the organisation's zone: 23:30 UTC on the 24th is already the 25th in Berlin.
    ['2026-11-24T23:30:00Z', 'Europe/Berlin', 'Wed 25 Nov 00:30 CET'],
    ['2026-11-24T14:00:00Z', 'Europe/Berlin', '15:00 CET today'],
    ['2026-07-01T10:00:00Z', 'Europe/Berlin', 'Wed 1 Jul 12:00 CEST'],
    ['not a time', 'UTC', 'not a time'],
  ])('%s in %s reads "%s"', (iso, zone, expected) => {
    expect(formatWhen(iso, NOW, zone)).toBe(expected);
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
