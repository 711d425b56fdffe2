import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../../web/src/csv.js';
import { duration, percent, ratio } from '../../web/src/insight-format.js';
import { isDay, startOfDay, windowOf } from '../../web/src/insight-window.js';

describe('CSV of a figures table', () => {
  it('a header row, then one line per row, CRLF-ended; numbers as plain numbers, null as an empty cell', () => {
    expect(toCsv(['Week (first day)', 'Submitted', 'Share of asks (fraction of 1)'], [['2026-11-16', 12, 0.25], ['2026-11-23', 0, null]])).toBe(
      'Week (first day),Submitted,Share of asks (fraction of 1)\r\n2026-11-16,12,0.25\r\n2026-11-23,0,\r\n',
    );
    expect(csvField(1932.5)).toBe('1932.5');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(Number.NaN)).toBe('');
  });

  it('quotes a field with a comma, quote, line break or edge space, doubling its quotes', () => {
    expect(csvField('billing, EU')).toBe('"billing, EU"');
    expect(csvField('the "new" ledger')).toBe('"the ""new"" ledger"');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField('plain')).toBe('plain');
  });

  it('text a spreadsheet would run as a formula stays text', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-bot')).toBe("'-bot");
    expect(csvField('@team')).toBe("'@team");
  });
});

describe('the Insights window', () => {
  const now = Date.parse('2026-11-23T10:20:00.000Z');

  it('a preset ends at the next whole hour and reaches back its days; the default is 30 days', () => {
    expect(windowOf({ range: '', from: '', to: '' }, now, 'UTC')).toEqual({ from: '2026-10-24T11:00:00.000Z', to: '2026-11-23T11:00:00.000Z' });
    expect(windowOf({ range: '90d', from: '', to: '' }, now, 'UTC')).toEqual({ from: '2026-08-25T11:00:00.000Z', to: '2026-11-23T11:00:00.000Z' });
    const three = windowOf({ range: '3y', from: '', to: '' }, now, 'UTC') as { from: string; to: string };
    expect(Date.parse(three.to) - Date.parse(three.from)).toBe(1096 * 86_400_000);
  });

  it('days are the organisation’s, both included', () => {
    expect(windowOf({ range: '', from: '2026-11-09', to: '2026-11-15' }, now, 'UTC')).toEqual({ from: '2026-11-09T00:00:00.000Z', to: '2026-11-16T00:00:00.000Z' });
    // Auckland is 13 hours ahead in November (daylight time).
    expect(windowOf({ range: '', from: '2026-11-09', to: '2026-11-15' }, now, 'Pacific/Auckland')).toEqual({ from: '2026-11-08T11:00:00.000Z', to: '2026-11-15T11:00:00.000Z' });
    // New York's clocks went back on 1 November: that day is 25 hours long.
    expect(new Date(startOfDay('2026-11-01', 'America/New_York')).toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(new Date(startOfDay('2026-11-02', 'America/New_York')).toISOString()).toBe('2026-11-02T05:00:00.000Z');
  });

  it('says what is wrong with the days instead of asking the server', () => {
    expect(windowOf({ range: '', from: '2026-11-15', to: '2026-11-09' }, now, 'UTC')).toEqual({ error: 'The start day must be on or before the end day.' });
    expect(windowOf({ range: '', from: '2026-02-30', to: '' }, now, 'UTC')).toEqual({ error: 'The start day is not a date (YYYY-MM-DD).' });
    expect(isDay('2028-02-29')).toBe(true);
    expect(isDay('2026-13-01')).toBe(false);
  });
});

describe('the Insights figures in words', () => {
  it('times, shares and rates', () => {
    expect([duration(null), duration(45), duration(1932), duration(5.25 * 3600), duration(3 * 86_400)]).toEqual(['—', '45 s', '32 min', '5.3 h', '3 days']);
    expect([percent(null), percent(0.25), percent(1 / 3), percent(1)]).toEqual(['—', '25%', '33.3%', '100%']);
    expect([ratio(3, 4), ratio(0, 0)]).toEqual([0.75, null]);
  });
});
