import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { waitSentence, type WaitFacts } from '../../src/core/wait-sentence.js';

/** An instant given on a wall clock in a zone, as an ISO string in UTC (what the API sends). */
const wall = (zone: string, year: number, month: number, day: number, hour: number, minute = 0) =>
  DateTime.fromObject({ year, month, day, hour, minute }, { zone }).toUTC().toISO()!;

// Mon 7 Dec 2026, 09:15 UTC: 15:00 in Kathmandu (UTC+5:45), 23:45 the day before in the Marquesas (UTC-9:30).
const NOW = DateTime.fromISO('2026-12-07T09:15:00Z').toMillis();
const names: Record<string, string> = { lee: 'Lee Chen', dana: 'Dana Smith' };
const options = { now: NOW, name: (id: string) => names[id] ?? id, fallbackZone: 'Pacific/Marquesas' };
const KTM = 'Asia/Kathmandu';

describe('why a request waits, on the clock of whoever it waits for', () => {
  it.each<[string, WaitFacts, string]>([
    ['an expert whose day starts at 02:00 in Kathmandu, while the organisation is in the Marquesas',
      { why: 'working_hours', expert_id: 'lee', until: wall(KTM, 2026, 12, 8, 2), timezone: KTM },
      'Lee Chen starts work at 02:00 Asia/Kathmandu on Tue 8 Dec, in 11 h'],
    ['a working day that starts later today, in the expert\'s zone',
      { why: 'working_hours', expert_id: 'dana', until: wall('Europe/Berlin', 2026, 12, 7, 11, 45), timezone: 'Europe/Berlin' },
      'Dana Smith starts work at 11:45 Europe/Berlin today, in 1.5 h'],
    ['quiet hours, on the organisation\'s clock',
      { why: 'quiet_hours', expert_id: 'lee', until: wall('Pacific/Marquesas', 2026, 12, 8, 7), timezone: 'Pacific/Marquesas' },
      'Quiet hours end at 07:00 Pacific/Marquesas on Tue 8 Dec, in 31 h; then Lee Chen is asked'],
    ['quiet hours for several experts',
      { why: 'quiet_hours', until: wall('UTC', 2026, 12, 7, 22), timezone: 'UTC' },
      'Quiet hours end at 22:00 UTC today, in 13 h; then the expert is asked'],
    ['away for a week, back on their own morning',
      { why: 'away', expert_id: 'lee', until: wall(KTM, 2026, 12, 14, 9), timezone: KTM },
      'Lee Chen is away until 09:00 Asia/Kathmandu on Mon 14 Dec, in 7 days'],
    ['do-not-disturb for twenty minutes',
      { why: 'dnd', expert_id: 'lee', until: wall(KTM, 2026, 12, 7, 15, 20), timezone: KTM },
      'Lee Chen has do-not-disturb on until 15:20 Asia/Kathmandu today, in 20 min'],
    ['a daily limit that resets at the expert\'s midnight',
      { why: 'cap', expert_id: 'lee', until: wall(KTM, 2026, 12, 8, 0), timezone: KTM },
      'Lee Chen is at their daily limit; the question goes out at 00:00 Asia/Kathmandu on Tue 8 Dec, in 9 h'],
    ['every expert at a limit on open questions',
      { why: 'cap' },
      'Every expert for this topic is at their limit; the question goes out when one of them answers an open question'],
    ['one expert at a limit on open questions',
      { why: 'cap', expert_id: 'dana' },
      'Dana Smith is at their limit; the question goes out when they answer an open question'],
    ['next year carries the year',
      { why: 'away', expert_id: 'dana', until: wall('UTC', 2027, 1, 5, 9), timezone: 'UTC' },
      'Dana Smith is away until 09:00 UTC on Tue 5 Jan 2027, in 29 days'],
    ['an older server that names no zone: the organisation\'s',
      { why: 'working_hours', expert_id: 'lee', until: wall(KTM, 2026, 12, 8, 2) },
      'Lee Chen starts work at 10:45 Pacific/Marquesas on Mon 7 Dec, in 11 h'],
    ['an expert not in the asks is named by id', { why: 'working_hours', expert_id: 'zoe' }, 'zoe is outside their working hours'],
    ['quiet hours with no known end', { why: 'quiet_hours' }, 'Quiet hours: nobody is asked until they end'],
    ['the question being prepared', { why: 'llm' }, 'Preparing the question for the expert, or checking it against earlier answers; nobody is asked yet'],
    ['an answer waiting for review', { why: 'review' }, 'An expert answered; a reviewer must accept, reject or send it back'],
  ])('%s', (_case, wait, said) => {
    expect(waitSentence(wait, options)).toBe(said);
  });

  it('names who answered a request that waits for review', () => {
    expect(waitSentence({ why: 'review' }, { ...options, proposal: { provenance: { expert_name: 'Dana Smith' } } })).toBe('Dana Smith answered; a reviewer must accept, reject or send it back');
  });
});
